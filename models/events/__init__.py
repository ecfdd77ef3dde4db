"""Event-camera methods: reflection scenes, layer motion decoupling, reflection removal."""
