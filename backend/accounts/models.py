from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    class Role(models.TextChoices):
        STUDENT = "student"
        TA = "ta"
        INSTRUCTOR = "instructor"

    role = models.CharField(max_length=16, choices=Role.choices, default=Role.STUDENT)

    # User.role is the account's kind (an instructor account may create courses); it opens no
    # course. Rights over students' work come from the course's Membership (courses.selectors).

    @property
    def manages_daemons(self) -> bool:
        """The daemons dashboard: site operators (superusers, Django staff: every daemon) and
        instructors of some course (their courses' daemons)."""
        if self.is_superuser or self.is_staff:
            return True
        return self.is_authenticated and self.memberships.filter(role="instructor").exists()
