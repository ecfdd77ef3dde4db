"""Microwave-link methods: rain from attenuation and rain-field reconstruction."""
