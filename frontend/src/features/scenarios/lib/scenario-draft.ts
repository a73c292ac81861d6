import type { Role, Scenario, User } from "@/types/api";

/** What the page edits: a library scenario (id) or a new one (id null). */
export interface ScenarioDraft {
  id: number | null;
  name: string;
  description: string;
  text: string;
}

/** A start for a new scenario: the language's main forms, each with its comment. */
export const NEW_SCENARIO_TEXT = `# One statement per line (docs/churn.md).
at 10s join 20                    # 20 nodes at once
from 1m to 2m join 20             # 20 more, spread over the minute
from 3m to 5m const churn 50%     # half the population replaced, at random instants
at 6m leave 50%                   # a massive failure
at 8m stop
`;

/** Who adds to the library (as the server): the instructors and TAs of some course (their
 * courses' roles, not the account's) and site operators; students only try texts. */
export const canAddToLibrary = (courseRoles: Role[], operator: boolean): boolean =>
  operator || courseRoles.some((role) => role === "instructor" || role === "ta");

/** Who saves over or deletes a library scenario: its author and site operators (the library is
 * shared by every course). */
export const canEditScenario = (owner: string | undefined, me: User | undefined): boolean =>
  me !== undefined && (me.operator === true || (owner !== undefined && owner === me.username));

export const draftOf = (scenario: Scenario): ScenarioDraft => ({
  id: scenario.id,
  name: scenario.name,
  description: scenario.description,
  text: scenario.text,
});

export const newDraft = (): ScenarioDraft => ({ id: null, name: "", description: "", text: NEW_SCENARIO_TEXT });

/** Unsaved: a new scenario with anything typed, or a library one that differs from its saved version. */
export function isDirty(draft: ScenarioDraft, saved: Scenario | undefined): boolean {
  if (draft.id === null) {
    const blank = newDraft();
    return draft.name !== blank.name || draft.description !== blank.description || draft.text !== blank.text;
  }
  if (!saved) return false; // deleted meanwhile: nothing to compare with
  return draft.name !== saved.name || draft.description !== saved.description || draft.text !== saved.text;
}

/** The list with `scenario` added or replaced, by name as the server orders it. */
export function upsertScenario(list: Scenario[] | undefined, scenario: Scenario): Scenario[] {
  const rest = (list ?? []).filter((s) => s.id !== scenario.id);
  return [...rest, scenario].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
