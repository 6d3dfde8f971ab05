"""tigris.Error: what the CLI prints as ``Error: ...``, raised instead."""


class Error(Exception):
    """A refusal or failure, with the ``tigris`` command's one-line message.

    ``exit_status`` is the status the command would exit with: 1 for a failure (a bad
    file, a model that does not fit, a run the runtime refuses), 2 for a usage error (an
    argument that is wrong in itself). ``kind`` names it: ``"failure"`` or ``"usage"``.
    ``report`` holds the summary when one was made before the refusal (compile).
    """

    def __init__(self, message, exit_status=1, report=None):
        super().__init__(message)
        self.message = message
        self.exit_status = exit_status
        self.kind = "usage" if exit_status == 2 else "failure"
        self.report = report

    def __str__(self):
        return self.message
