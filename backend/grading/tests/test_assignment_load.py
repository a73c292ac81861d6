"""assignment_load_from_folder and `manage.py assignments_load` (the CLI's
`./splaylab assignments load PATH... --course SLUG`), on the real assignments/chord."""
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from grading.models import Assignment
from grading.services import assignment_load_from_folder
from lib.errors import ApplicationError

CHORD = Path(settings.REPO_DIR) / "assignments" / "chord"


def test_loading_copies_every_text_the_grader_needs(classroom) -> None:
    assignment, created = assignment_load_from_folder(course=classroom.course, path=CHORD)
    assert created
    assert (assignment.slug, assignment.title) == ("chord", "Chord: lookups on a ring")
    assert assignment.folder == "assignments/chord"
    assert assignment.handout == (CHORD / "README.md").read_text()
    assert assignment.starter == (CHORD / "starter" / "app.lua").read_text()
    assert assignment.reference == (CHORD / "reference" / "app.lua").read_text()
    assert assignment.harness == (CHORD / "harness.lua").read_text()
    assert [r["name"] for r in assignment.spec["runs"]] == ["ring"]
    assert not assignment.published and assignment.deadline is None


def test_loading_again_updates_by_slug_and_keeps_deadline_and_publication(classroom) -> None:
    assignment, _ = assignment_load_from_folder(course=classroom.course, path=CHORD)
    deadline = timezone.now()
    Assignment.objects.filter(id=assignment.id).update(deadline=deadline, published=True, title="old")
    again, created = assignment_load_from_folder(course=classroom.course, path=CHORD)
    assert (created, again.id, again.title) == (False, assignment.id, "Chord: lookups on a ring")
    assert (again.deadline, again.published) == (deadline, True)
    # Another course gets its own copy.
    _, created = assignment_load_from_folder(course=classroom.other_course, path=CHORD)
    assert created and Assignment.objects.count() == 2


def test_a_bad_folder_is_refused_with_the_graders_reason(classroom, tmp_path) -> None:
    (tmp_path / "assignment.yaml").write_text("title: T\nruns: [{name: r}]\nchecks: [{name: c, check: nope}]\n")
    for name in ("starter/app.lua", "reference/app.lua", "harness.lua", "README.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("-- x\n")
    with pytest.raises(ApplicationError, match="check: no library check 'nope'"):
        assignment_load_from_folder(course=classroom.course, path=tmp_path)
    with pytest.raises(ApplicationError, match="not an assignment folder"):
        assignment_load_from_folder(course=classroom.course, path=tmp_path / "starter")
    assert not Assignment.objects.exists()


def test_the_command_loads_folders_into_the_course_it_names(classroom) -> None:
    out = StringIO()
    call_command("assignments_load", str(CHORD), "--course", "ds", stdout=out)
    assert out.getvalue() == "created ds/chord: Chord: lookups on a ring (not published)\n"
    call_command("assignments_load", str(CHORD), "--course", "ds", stdout=out)
    assert out.getvalue().endswith("updated ds/chord: Chord: lookups on a ring (not published)\n")
    with pytest.raises(CommandError, match="no course with slug 'nope'"):
        call_command("assignments_load", str(CHORD), "--course", "nope", stdout=out)
    err = StringIO()
    with pytest.raises(CommandError, match="1 of 2 folders not loaded"):
        call_command("assignments_load", str(CHORD), str(CHORD.parent / "hello"), "--course", "ds",
                     stdout=out, stderr=err)
    assert "not an assignment folder (no assignment.yaml)" in err.getvalue()
