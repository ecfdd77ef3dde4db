"""The error every CML reader raises for data that breaks the OpenSense convention."""


class CMLDataError(ValueError):
    """CML data that breaks the convention; the message says what and where."""
