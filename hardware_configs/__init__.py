"""The shipped hardware configs (*.yaml), one backend each; package data."""
