from django.conf import settings
from django.db import models


class Course(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(unique=True)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        STUDENT = "student"
        TA = "ta"
        INSTRUCTOR = "instructor"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memberships")
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.STUDENT)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "course"], name="membership_unique")]
