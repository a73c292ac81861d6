import { Spinner } from "@/components/ui/spinner";
import { useMe } from "@/features/auth/api/get-me";
import { useCourses } from "@/features/courses/api/get-courses";
import { useScenarios } from "@/features/scenarios/api/get-scenarios";
import { ChurnEditor } from "@/features/scenarios/components/churn-editor";
import { ChurnPreview } from "@/features/scenarios/components/churn-preview";
import { ScenarioForm } from "@/features/scenarios/components/scenario-form";
import { ScenarioList } from "@/features/scenarios/components/scenario-list";
import { TraceTools } from "@/features/scenarios/components/trace-tools";
import { useChurnPreview } from "@/features/scenarios/hooks/use-churn-preview";
import { useScenarioDraft } from "@/features/scenarios/hooks/use-scenario-draft";
import { canAddToLibrary, canEditScenario } from "@/features/scenarios/lib/scenario-draft";

/** The churn scenario library: a scenario's text in the editor, its preview (figure 4) beside
 * it as the user types, the trace tools below; the instructors and TAs of a course add to the
 * library, a scenario's author saves it, students try texts. */
export function ScenariosRoute() {
  const me = useMe();
  const courses = useCourses();
  const canAdd = canAddToLibrary((courses.data ?? []).map((c) => c.role), me.data?.operator ?? false);
  const scenarios = useScenarios();
  // an unreadable library still leaves a new scenario to try
  const scenario = useScenarioDraft(scenarios.data ?? (scenarios.isError ? [] : undefined));
  const { draft } = scenario;
  const owner = scenarios.data?.find((s) => s.id === draft?.id)?.owner;
  const canWrite = canAdd && (draft?.id == null || canEditScenario(owner, me.data));
  const preview = useChurnPreview(draft?.text ?? null);

  return (
    <div className="scenarios-page">
      <ScenarioList scenarios={scenarios.data} error={scenarios.error} openId={draft?.id} canWrite={canAdd}
        onOpen={scenario.open} />
      <div className="scenario-main">
        {draft === null ? (
          <Spinner label="Loading scenarios…" />
        ) : (
          <>
            <ScenarioForm draft={draft} dirty={scenario.dirty} canWrite={canWrite} saving={scenario.saving}
              saveError={scenario.saveError} onEdit={scenario.edit} onSave={scenario.save} onDelete={scenario.destroy} />
            <div className="scenario-work">
              <ChurnEditor key={scenario.opened} path={`scenario-${scenario.opened}.churn`} text={draft.text}
                onChange={(text) => scenario.edit({ text })} errors={preview.errors}
                onSave={canWrite ? scenario.save : undefined} />
              <ChurnPreview state={preview} />
            </div>
            <TraceTools text={draft.text} name={draft.name} opened={scenario.opened}
              onText={(text) => scenario.edit({ text })} />
          </>
        )}
      </div>
    </div>
  );
}
