import { type ApiField, type ApiFunction, type ApiModule, publicFields, publicFunctions, SPLAY_API } from "@/lib/splay-api";

export interface ReferenceModule {
  module: ApiModule;
  functions: ApiFunction[];
  fields: ApiField[];
}

const matches = (query: string, ...texts: string[]) => texts.some((t) => t.toLowerCase().includes(query));

/** The modules, functions and fields of the reference page that match `query` (a name such as
 * "sleep" or "events.sleep", or words of a doc line); all public ones when it is empty. A module
 * whose own name or doc matches keeps all its members. */
export function filterReference(query: string, modules: readonly ApiModule[] = SPLAY_API.modules): ReferenceModule[] {
  const q = query.trim().toLowerCase();
  return modules.flatMap((m) => {
    const functions = publicFunctions(m);
    const fields = publicFields(m);
    if (!q || matches(q, m.name, m.require ?? "", m.doc)) return [{ module: m, functions, fields }];
    const fs = functions.filter((f) => matches(q, f.name, `${m.name}.${f.name}`, f.doc));
    const ds = fields.filter((f) => matches(q, f.name, `${m.name}.${f.name}`, f.doc));
    return fs.length || ds.length ? [{ module: m, functions: fs, fields: ds }] : [];
  });
}
