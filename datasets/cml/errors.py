"""The error every CML reader raises for data that breaks the OpenSense convention."""

from ...errors import InputFileError


class CMLDataError(InputFileError):
    """CML data that breaks the convention; the message says what and where."""
