from accounts.models import User

PASSWORD = "correct-horse-battery"


def user_make(username: str, *, role: str = User.Role.STUDENT, password: str = PASSWORD,
              **extra: object) -> User:
    user = User(username=username, role=role, **extra)
    user.set_password(password)
    user.save()
    return user
