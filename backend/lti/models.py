"""A course's LMS as an LTI 1.3 platform, what a launch binds (users, the LMS course), the
tool's own keys, and the state of every grade sent back (README.md: the data flow)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from courses.models import Course
from grading.models import Assignment, Submission


class ToolKey(models.Model):
    """SplayLab's RSA key pair as an LTI tool: the platform checks our service-token requests
    and deep-linking answers against its public half, served at /lti/jwks/. One active key; an
    older one stays published (active=False) until platforms have fetched the new one."""
    kid = models.CharField(max_length=64, unique=True)
    private_pem = models.TextField()
    public_pem = models.TextField()
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    signed_until = models.DateTimeField(null=True, blank=True, help_text="when a rotation took it out of signing")


class Platform(models.Model):
    """An LMS registered by an instructor of `course`: what the LMS showed them when they added
    SplayLab as a tool. (issuer, client_id) names the registration in every launch."""
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_platforms")
    name = models.CharField(max_length=200, blank=True, help_text="how the instructor calls it (Canvas, Moodle...)")
    issuer = models.CharField(max_length=500, help_text="the id_token's iss")
    client_id = models.CharField(max_length=500, help_text="the id_token's aud: the LMS's id for SplayLab")
    auth_login_url = models.URLField(max_length=1000, help_text="the LMS's OIDC authorization endpoint")
    auth_token_url = models.URLField(max_length=1000, help_text="the LMS's OAuth2 token endpoint (services)")
    key_set_url = models.URLField(max_length=1000, help_text="the LMS's JWKS: the keys its id_tokens are signed with")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "client_id"], name="lti_platform_unique")]

    def __str__(self) -> str:
        return f"{self.name or self.issuer} ({self.client_id}) for {self.course.slug}"


class Deployment(models.Model):
    """A placement of the tool in the LMS (its deployment_id claim); a launch from a deployment
    not listed here is refused."""
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="deployments")
    deployment_id = models.CharField(max_length=500)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "deployment_id"], name="lti_deployment_unique")]


class Context(models.Model):
    """The LMS course (context claim) bound to the registration's SplayLab course at its first
    launch, with the service URLs its launches carry (AGS line items, NRPS memberships)."""
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="contexts")
    context_id = models.CharField(max_length=500)
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="lti_contexts")
    title = models.CharField(max_length=500, blank=True)
    deployment_id = models.CharField(max_length=500, blank=True)
    lineitems_url = models.URLField(max_length=1000, blank=True)
    ags_scopes = models.JSONField(default=list, blank=True)
    memberships_url = models.URLField(max_length=1000, blank=True)
    roster_synced_at = models.DateTimeField(null=True, blank=True)
    roster_error = models.TextField(blank=True)
    bound_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "context_id"], name="lti_context_unique")]


class LmsUser(models.Model):
    """The LMS's user (the `sub` claim of one platform) and the SplayLab account it is."""
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="users")
    sub = models.CharField(max_length=500)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lti_identities")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "sub"], name="lti_user_unique")]


class UsedNonce(models.Model):
    """The nonce of every id_token accepted: a second launch with it is a replay. pylti1p3
    itself lets an id_token through again for its state (a reload), so this is our check."""
    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="+")
    nonce = models.CharField(max_length=200)
    used_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["platform", "nonce"], name="lti_nonce_unique")]


class LineItem(models.Model):
    """The LMS's grade column of one assignment in one bound LMS course (AGS line item)."""
    context = models.ForeignKey(Context, on_delete=models.CASCADE, related_name="line_items")
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="lti_line_items")
    url = models.URLField(max_length=1000)
    resource_link_id = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["context", "assignment"], name="lti_lineitem_unique")]


class GradeSync(models.Model):
    """Where one student's grade for one assignment stands with the LMS: pending (a change not
    yet accepted by the LMS, retried with backoff), sent, or failed with the reason."""
    class State(models.TextChoices):
        PENDING = "pending"
        SENT = "sent"
        FAILED = "failed"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="lti_syncs")
    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    submission = models.ForeignKey(Submission, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
                                   help_text="the graded submission whose score was (to be) sent; none: an override")
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    reason = models.TextField(blank=True, help_text="why it is pending or failed")
    score = models.FloatField(null=True, blank=True, help_text="the score sent (or to send), 0-100")
    changed_at = models.DateTimeField(help_text="when the grade changed in SplayLab: the score's timestamp")
    held = models.BooleanField(default=False, help_text="pending until the deadline releases hidden checks")
    tries = models.PositiveIntegerField(default=0)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "student"], name="lti_gradesync_unique")]
