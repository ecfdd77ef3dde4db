"""Event-camera backends: simulator (CPU, GPU), files, live cameras."""
