import { useState, type FormEvent } from "react";
import { errorText } from "@/components/ui/error-message";
import type { DaemonWithKey } from "@/types/daemons";
import { useCreateDaemon } from "../api/create-daemon";
import { parseCreateForm } from "../lib/daemon-view";

export interface CourseChoice {
  id: number;
  name: string;
}

/** A new daemon for one of the courses you instruct (its instructors manage it, and that
 * course's students' jobs run on its daemons), or for the shared pool (site operators only, and
 * their default). Its key comes back once (shown by the page with a splayd.toml). */
export function CreateDaemonForm({
  courses,
  operator,
  onCreated,
}: {
  courses: CourseChoice[];
  operator: boolean;
  onCreated: (result: DaemonWithKey) => void;
}) {
  const create = useCreateDaemon();
  const [course, setCourse] = useState(operator ? "" : String(courses[0]?.id ?? ""));
  const [name, setName] = useState("");
  const [maxInstances, setMaxInstances] = useState("10");
  const [ports, setPorts] = useState("20000-20999");
  const [problem, setProblem] = useState("");

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const input = parseCreateForm({ name, maxInstances, ports, course });
    if (typeof input === "string") {
      setProblem(input);
      return;
    }
    setProblem("");
    create.mutate(input, {
      onSuccess: (result) => {
        setName("");
        onCreated(result);
      },
    });
  };

  return (
    <form className="card daemon-form" onSubmit={onSubmit} aria-label="Create a daemon">
      <h2>Create a daemon</h2>
      <label>
        Name
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} placeholder="lab-3" required />
      </label>
      <label>
        Course
        <select name="course" value={course} onChange={(e) => setCourse(e.target.value)}>
          {operator && <option value="">No course: the shared pool</option>}
          {courses.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Max instances
        <input name="max_instances" inputMode="numeric" value={maxInstances} onChange={(e) => setMaxInstances(e.target.value)} />
      </label>
      <label>
        Ports
        <input name="ports" value={ports} onChange={(e) => setPorts(e.target.value)} placeholder="20000-20999" />
      </label>
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create"}
      </button>
      {(problem || create.error) && (
        <p className="form-error" role="alert" data-testid="daemon-create-error">
          {problem || errorText(create.error)}
        </p>
      )}
    </form>
  );
}
