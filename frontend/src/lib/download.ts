/** Saves `href` (an object or data URL) as a file named `name`, through a temporary <a download>. */
export function download(name: string, href: string): void {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The download reads the blob asynchronously: free it a while later, not at once.
  if (href.startsWith("blob:")) setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** Saves `text` as a file named `name`. */
export function downloadText(name: string, text: string, type = "text/plain"): void {
  download(name, URL.createObjectURL(new Blob([text], { type })));
}
