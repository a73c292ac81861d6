// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../markdown";

const dom = (html: string) => {
  const holder = document.createElement("div");
  holder.innerHTML = html;
  return holder;
};

describe("renderMarkdown", () => {
  it("renders the handout's markdown: headings, code, GFM tables", () => {
    const html = renderMarkdown("# Chord\n\nFill in `join`.\n\n| check | points |\n|---|---|\n| ring | 20 |\n\n```lua\nprint(1)\n```\n");
    const el = dom(html);
    expect(el.querySelector("h1")?.textContent).toBe("Chord");
    expect(el.querySelector("p code")?.textContent).toBe("join");
    expect([...el.querySelectorAll("td")].map((td) => td.textContent)).toEqual(["ring", "20"]);
    expect(el.querySelector("pre code")?.textContent).toBe("print(1)\n");
  });

  it("drops scripts, event handlers and javascript: links from raw HTML", () => {
    const html = renderMarkdown(
      'Hi <script>alert(1)</script><img src="x.png" onerror="alert(2)"> [x](javascript:alert(3)) ' +
        '<a href="javascript:alert(4)">y</a> <iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toMatch(/script|onerror|javascript:|iframe|alert/i);
    const el = dom(html);
    expect(el.querySelector("img")?.getAttribute("src")).toBe("x.png");
  });

  it("drops styles and forms that could dress up as the page", () => {
    const html = renderMarkdown('<style>body{display:none}</style><form action="/api/x"><input name="a"><button>go</button></form>' +
      '<p style="position:fixed">text</p>');
    expect(html).not.toMatch(/<style|<form|<input|<button|position:fixed/i);
    expect(dom(html).textContent).toContain("text");
  });

  it("keeps harmless HTML and opens outside links in a new tab", () => {
    const el = dom(renderMarkdown("<details><summary>Hint</summary>Use `between`.</details>\n\n[paper](https://example.org/splay.pdf) and [local](#runs)"));
    expect(el.querySelector("details summary")?.textContent).toBe("Hint");
    const [outside, local] = [...el.querySelectorAll("a")];
    expect(outside?.getAttribute("target")).toBe("_blank");
    expect(outside?.getAttribute("rel")).toBe("noopener noreferrer");
    expect(local?.getAttribute("target")).toBeNull();
  });

  it("renders an empty handout as nothing", () => {
    expect(renderMarkdown("")).toBe("");
  });
});
