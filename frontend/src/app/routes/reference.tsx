import { ApiReference } from "@/features/reference/components/api-reference";

export function ReferenceRoute() {
  return (
    <div className="narrow">
      <ApiReference />
    </div>
  );
}
