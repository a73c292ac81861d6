// The handout (an assignment's README.md) as HTML that is safe to put in the page: marked
// renders the markdown (GFM: tables, fenced code), DOMPurify then keeps only inert HTML (no
// script, no event handler, no javascript: URL, no style, no form or frame) from whatever raw
// HTML the markdown held. Outside links open in a new tab.
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

let purifier: ReturnType<typeof DOMPurify> | null = null;

/** A DOMPurify of our own (its hook does not touch others'), made on first use (needs a DOM). */
function getPurifier(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  purifier = DOMPurify(window);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && /^https?:\/\//i.test(node.getAttribute("href") ?? "")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
  return purifier;
}

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "frame", "object", "embed"],
  FORBID_ATTR: ["style"],
  ADD_ATTR: ["target"],
};

/** Markdown → sanitised HTML. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return getPurifier().sanitize(html, PURIFY_CONFIG) as string;
}
