/** Which limit a refused chart ran into (see CHART_LIMITS). */
export type ChartLimit = 'rows' | 'width' | 'height' | 'pixels' | 'time' | 'memory' | 'spec-size';

/**
 * A chart spec the engine refuses to render: it sets colours, reaches for external data, breaks a limit,
 * or Vega-Lite cannot compile it. `path` points into `vega_lite_spec` (`"encoding.color.scale.range"`,
 * `"layer[1].mark.color"`, `"data.url"`; `''` for the whole spec); `limit` says which limit was exceeded.
 * The message is written for the agent that sent the spec: what is wrong and what to do instead.
 */
export class ChartSpecError extends Error {
  override readonly name = 'ChartSpecError';

  constructor(
    readonly path: string,
    message: string,
    readonly limit?: ChartLimit,
  ) {
    super(message);
  }
}
