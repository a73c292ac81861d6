import type { User } from "@/types/api";
import { useLogout } from "../api/logout";

interface UserMenuProps {
  user: User;
  onLoggedOut: () => void;
}

export function UserMenu({ user, onLoggedOut }: UserMenuProps) {
  const logoutMutation = useLogout();
  return (
    <div className="user-menu" data-testid="user-menu">
      <span className="user-name">{user.username}</span>
      <span className="user-role">{user.role}</span>
      <button
        type="button"
        data-testid="logout-button"
        disabled={logoutMutation.isPending}
        onClick={() => logoutMutation.mutate(undefined, { onSettled: onLoggedOut })}
      >
        Logout
      </button>
    </div>
  );
}
