const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Focus the first focusable element after `container` in document order (where Tab would go
 * from the container's end); false when there is none. */
export function focusAfter(container: HTMLElement): boolean {
  for (const el of document.querySelectorAll<HTMLElement>(FOCUSABLE)) {
    if (container.contains(el)) continue;
    if (!(container.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
    if (el.offsetParent === null && getComputedStyle(el).position !== "fixed") continue; // hidden
    el.focus();
    if (document.activeElement === el) return true;
  }
  return false;
}
