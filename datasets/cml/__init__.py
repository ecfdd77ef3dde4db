"""Commercial microwave link data in the OpenSense convention."""
