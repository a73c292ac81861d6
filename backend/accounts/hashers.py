"""The password hash: Argon2id at OWASP's first recommended setting (19 MiB of memory, 2
passes, 1 lane) instead of Django's default PBKDF2 (1,000,000 SHA-256 rounds). Both are
OWASP-acceptable; this one costs ~18 ms of CPU a login where PBKDF2 cost ~205 ms, so a class
signing in together at the start of a lab (100 logins in a minute) no longer takes a core
for 20 s. Django's own Argon2 setting (100 MiB, 8 lanes) costs as much CPU as PBKDF2 and
100 MiB per concurrent login. Hashes made with other settings or hashers still verify and are
re-hashed with this one at the next login (docs/decisions.md, "Passwords")."""
from django.contrib.auth.hashers import Argon2PasswordHasher


class ClassroomArgon2PasswordHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
