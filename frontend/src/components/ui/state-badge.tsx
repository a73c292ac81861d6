interface StateBadgeProps {
  state: string;
  testId?: string;
}

/** Job and instance states, each with its own colour (see .state-* in styles.css). */
export function StateBadge({ state, testId }: StateBadgeProps) {
  return (
    <span className={`state-badge state-${state.toLowerCase()}`} data-testid={testId} data-state={state}>
      {state}
    </span>
  );
}
