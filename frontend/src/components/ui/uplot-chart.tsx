import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

interface UPlotChartProps {
  /** The options for a width; rebuilt only when `optionsKey` changes (axis labels, units). */
  options: (width: number) => uPlot.Options;
  optionsKey: string;
  data: uPlot.AlignedData;
  testId: string;
  className?: string;
}

const width = (el: HTMLElement) => Math.max(300, el.clientWidth);

/** One uPlot chart, its data set in place as it changes (no flicker while a preview is typed or
 * a run streams in); rebuilt only when `optionsKey` changes. */
export function UPlotChart({ options, optionsKey, data, testId, className }: UPlotChartProps) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const dataRef = useRef(data);
  dataRef.current = data;

  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const opts = options(width(el));
    const p = new uPlot(opts, dataRef.current, el);
    plot.current = p;
    const resize = new ResizeObserver(() => p.setSize({ width: width(el), height: opts.height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      p.destroy();
      plot.current = null;
    };
    // rebuilt when the axes change; data updates below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [optionsKey]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div ref={holder} className={className} data-testid={testId} />;
}
