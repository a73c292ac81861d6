// Pure (no Monaco import) so the placement rules are unit-tested.

export interface MarkerRange {
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
}

/**
 * Where an error marker goes: its line clamped to the text, from its column (1-based; 0 or
 * absent: the whole line) to its end column (inclusive) or the end of the line. A column at or
 * past the end still marks the last character, since Monaco draws no squiggle for an empty range.
 */
export function markerRange(
  marker: { line: number; column?: number; endColumn?: number },
  lineCount: number,
  lineMaxColumn: (line: number) => number,
): MarkerRange {
  const line = Math.min(Math.max(1, Math.floor(marker.line) || 1), Math.max(1, lineCount));
  const lineEnd = lineMaxColumn(line);
  const column = marker.column !== undefined && marker.column > 0 ? Math.floor(marker.column) : 1;
  const startColumn = Math.min(column, Math.max(1, lineEnd - 1));
  const endColumn = marker.endColumn !== undefined && marker.endColumn >= startColumn
    ? Math.min(Math.floor(marker.endColumn) + 1, lineEnd)
    : lineEnd;
  return { startLineNumber: line, startColumn, endLineNumber: line, endColumn };
}
