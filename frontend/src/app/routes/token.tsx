import { TokenView } from "@/features/auth/components/token-view";

export function TokenRoute() {
  return (
    <div className="narrow">
      <TokenView />
    </div>
  );
}
