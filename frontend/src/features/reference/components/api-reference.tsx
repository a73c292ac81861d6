import { useMemo, useState } from "react";
import { signature, type ApiModule } from "@/lib/splay-api";
import { filterReference } from "../lib/reference-filter";

function ModuleHeading({ module: m }: { module: ApiModule }) {
  return (
    <>
      <h2 id={m.name}>
        <code>{m.name}</code>
        {m.require && <span className="muted api-require"> require &quot;{m.require}&quot;</span>}
        {m.global && <span className="muted api-require"> global {m.global}</span>}
      </h2>
      <p>{m.doc}</p>
      {m.example && <pre className="api-example">{m.example}</pre>}
    </>
  );
}

/** The SPLAY API a node's app sees (sandbox/splay_api.json, the editor's completion source),
 * searchable by name or words of its doc. */
export function ApiReference() {
  const [query, setQuery] = useState("");
  const shown = useMemo(() => filterReference(query), [query]);
  return (
    <section className="api-reference" aria-label="SPLAY API reference">
      <h1>SPLAY API</h1>
      <p className="muted">
        What a node&apos;s app can call; the editor completes the same names (Ctrl+Space) and explains them on hover.
      </p>
      <input type="search" aria-label="Search the API" data-testid="api-search" placeholder="e.g. sleep, rpc.call, timeout"
        value={query} onChange={(e) => setQuery(e.target.value)} />
      {shown.length === 0 && <p data-testid="api-none">Nothing in the API matches &quot;{query}&quot;.</p>}
      {shown.map(({ module: m, functions, fields }) => (
        <article key={m.name} className="api-module" data-testid={`api-module-${m.name}`}>
          <ModuleHeading module={m} />
          {functions.map((f) => (
            <div key={f.name} className="api-entry" id={`${m.name}.${f.name}`} data-testid="api-function">
              <code className="api-signature">{signature(m, f)}</code>
              {f.returns && <span className="muted"> → {f.returns}</span>}
              <p>{f.doc}</p>
              {f.params.length > 0 && (
                <ul className="api-params">
                  {f.params.map((p) => <li key={p.name}><code>{p.name}</code>: {p.type}{p.optional ? " (optional)" : ""}</li>)}
                </ul>
              )}
              {f.example && <pre className="api-example">{f.example}</pre>}
            </div>
          ))}
          {fields.map((f) => (
            <div key={f.name} className="api-entry" id={`${m.name}.${f.name}`} data-testid="api-field">
              <code className="api-signature">{m.name}.{f.name}</code> <span className="muted">{f.type}</span>
              <p>{f.doc}</p>
            </div>
          ))}
        </article>
      ))}
    </section>
  );
}
