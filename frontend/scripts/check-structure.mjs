// Layout rules from the style guide, checked without a linter dependency:
// kebab-case file names; shared code (components, lib, types) imports no feature or app code;
// features import no other feature and not the app; components stay under ~150 lines.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, dirname, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "src");
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+)*$/;
const MAX_COMPONENT_LINES = 150;
const problems = [];

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [path, ...walk(path)] : [path];
  });
}

/** "features/jobs" for src/features/jobs/..., "components" for src/components/..., etc. */
function area(file) {
  const parts = relative(root, file).split(sep);
  if (parts[0] === "features") return `features/${parts[1]}`;
  return parts.length > 1 ? parts[0] : "root";
}

function resolveImport(file, spec) {
  if (spec.startsWith("@/")) return join(root, spec.slice(2));
  if (spec.startsWith(".")) return resolve(dirname(file), spec);
  return null; // a package
}

for (const path of walk(root)) {
  const name = path.split(sep).pop();
  if (name !== "__tests__" && !KEBAB.test(name)) problems.push(`${relative(root, path)}: name is not kebab-case`);
  if (!/\.(ts|tsx)$/.test(name)) continue;

  const text = readFileSync(path, "utf8");
  const from = area(path);
  if (name.endsWith(".tsx") && from !== "app") {
    const lines = text.split("\n").length;
    if (lines > MAX_COMPONENT_LINES) problems.push(`${relative(root, path)}: ${lines} lines (max ${MAX_COMPONENT_LINES})`);
  }
  for (const match of text.matchAll(/(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)) {
    const target = resolveImport(path, match[1] ?? match[2]);
    if (!target || !target.startsWith(root)) continue;
    const to = area(target + sep + "x");
    const where = `${relative(root, path)} imports ${match[1] ?? match[2]}`;
    if (["components", "lib", "types"].includes(from) && (to.startsWith("features/") || to === "app")) {
      problems.push(`${where}: shared code must not import features or app`);
    } else if (from.startsWith("features/") && to !== from && (to.startsWith("features/") || to === "app")) {
      problems.push(`${where}: no cross-feature or feature → app imports`);
    }
  }
}

if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log("structure ok");
