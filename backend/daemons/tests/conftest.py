"""The dashboard's tests act as the site operator who runs the machines (the seeded teacher is
one: is_staff): every daemon and the blacklist are theirs. What an instructor of one course may
do with its daemons is tests/security/test_authorization_matrix.py's and test_daemon_scope.py's."""
import pytest

from accounts.models import User
from accounts.tests.factories import user_make


@pytest.fixture
def teacher(db: None) -> User:
    return user_make("teacher", role=User.Role.INSTRUCTOR, is_staff=True)
