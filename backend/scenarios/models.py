from django.conf import settings
from django.db import models


class Scenario(models.Model):
    """A named churn scenario of the instructors' library (docs/churn.md): a script in SPLAY's
    churn language or a trace. Everyone reads them; instructors and TAs write them."""
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    text = models.TextField()
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="scenarios")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
