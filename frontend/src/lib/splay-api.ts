// The SPLAY API description (sandbox/splay_api.json, checked against the runtime by
// sandbox/spec/splay_api_spec.lua), imported at build time: the editor's completion, hover and
// signature help, the API reference page and the lint's globals all read it from here.
import description from "../../../sandbox/splay_api.json";

export interface ApiParam {
  name: string;
  type: string;
  optional?: boolean;
}

export interface ApiFunction {
  name: string;
  params: ApiParam[];
  returns: string;
  doc: string;
  example: string;
  /** The runtime's own plumbing: documented, never offered to students. */
  internal?: boolean;
}

export interface ApiField {
  name: string;
  type: string;
  doc: string;
  internal?: boolean;
}

export interface ApiModule {
  name: string;
  /** `require "splay.x"` name; absent for `job`, a global only. */
  require?: string;
  /** The global that holds it (events, log, misc, job; socket after splay.base). */
  global?: string;
  doc: string;
  example: string;
  functions: ApiFunction[];
  fields: ApiField[];
}

export interface SplayApi {
  globals: string[];
  modules: ApiModule[];
}

export const SPLAY_API: SplayApi = description as SplayApi;

/** Every global a node's app sees: the sandbox's standard ones and the SPLAY modules'. */
export const SPLAY_GLOBALS: ReadonlySet<string> = new Set([
  ...SPLAY_API.globals,
  ...SPLAY_API.modules.flatMap((m) => (m.global ? [m.global] : [])),
]);

export function publicFunctions(m: ApiModule): ApiFunction[] {
  return m.functions.filter((f) => !f.internal);
}

export function publicFields(m: ApiModule): ApiField[] {
  return m.fields.filter((f) => !f.internal);
}

/** "rpc.call(node, call [, timeout])" */
export function signature(m: ApiModule, f: ApiFunction): string {
  let text = "";
  f.params.forEach((p, i) => {
    const name = p.name;
    text += p.optional ? ` [${i ? ", " : ""}${name}` : `${i ? ", " : ""}${name}`;
  });
  const closing = "]".repeat(f.params.filter((p) => p.optional).length);
  return `${m.name}.${f.name}(${text.trim()}${closing})`;
}
