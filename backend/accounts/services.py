from rest_framework.authtoken.models import Token

from .models import User


def user_create(*, username: str, password: str, role: str = User.Role.STUDENT,
                **extra: object) -> User:
    user = User(username=username, role=role, **extra)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    return user


def user_token_get_or_create(*, user: User) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key
