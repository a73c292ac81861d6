from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    class Role(models.TextChoices):
        STUDENT = "student"
        TA = "ta"
        INSTRUCTOR = "instructor"

    role = models.CharField(max_length=16, choices=Role.choices, default=Role.STUDENT)

    @property
    def sees_everything(self) -> bool:
        """TAs and instructors (and superusers) see every student's jobs, logs and workspaces."""
        return self.is_superuser or self.role in (self.Role.TA, self.Role.INSTRUCTOR)

    @property
    def manages_daemons(self) -> bool:
        return self.is_superuser or self.is_staff or self.role == self.Role.INSTRUCTOR
