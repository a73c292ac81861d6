"""The grader's own error: a check that cannot judge (no reference data, a run without what the
check needs) is an instructor's problem, reported as a grader error, never as the student's."""


class CheckError(Exception):
    """The check cannot judge (the reference produced no data): an instructor's problem."""
