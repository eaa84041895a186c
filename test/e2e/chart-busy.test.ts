/**
 * One render_chart call must not stop the server answering everyone else. The worst charts a request body
 * may carry (1 MiB, the default cap) go to the built REST server while a cheap request is polled: every poll
 * answers within a second, and each chart gets its answer (a picture or a clear 400) in bounded time.
 * Before label fitting was bounded, 16,000 ranking labels held the server for about 110 s.
 */
import { describe, expect, it } from 'vitest';
import { callTool, demoServer, http } from '../http-helpers.js';

const demo = demoServer();
const MAX_BODY = 1024 * 1024;
/** As long as the body cap allows: labels alike but for their last words, the case that compared every pair. */
const ROWS = 13_000;
const label = (i: number) => `Key-person dependency on the WMS administrator at site ${i}`;
const rows = Array.from({ length: ROWS }, (_, i) => ({ k: label(i), v: i % 97 }));

const CHARTS = {
  // A ranking: categories on y, one row each, far taller than a chart may be.
  ranking: {
    data: { values: rows },
    mark: 'bar',
    encoding: { y: { field: 'k', type: 'nominal', sort: '-x' }, x: { field: 'v', type: 'quantitative' } },
  },
  // Points with a category each on x, and a legend of them.
  categories: {
    data: { values: rows },
    mark: 'point',
    encoding: { x: { field: 'k', type: 'nominal' }, y: { field: 'v', type: 'quantitative' } },
  },
  legend: {
    data: { values: rows },
    mark: 'point',
    encoding: { x: { field: 'v', type: 'quantitative' }, color: { field: 'k', type: 'nominal' } },
  },
};

describe('render_chart with the largest specs a request may carry', () => {
  it('keeps answering other requests within a second, and answers each chart in bounded time', {
    timeout: 180_000,
  }, async () => {
    const { server, store } = demo;
    // A first chart loads the chart code and the font measurer (fontkit takes most of a second to load): a
    // cost of any first chart, not of its size, paid here before the clock starts.
    const small = {
      data: { values: rows.slice(0, 3) },
      mark: 'bar',
      encoding: { y: { field: 'k', type: 'nominal' }, x: { field: 'v', type: 'quantitative' } },
    };
    expect(
      (
        await callTool(
          server.url,
          'render_chart',
          { vault: 'northwind-logistics', title: 'Warm-up', vega_lite_spec: small },
          store.ownerKey,
        )
      ).status,
    ).toBe(200);
    for (const [name, spec] of Object.entries(CHARTS)) {
      const body = { vault: 'northwind-logistics', title: 'Worst case', vega_lite_spec: spec };
      expect(Buffer.byteLength(JSON.stringify(body)), name).toBeLessThan(MAX_BODY);
      let answered = false;
      const started = performance.now();
      const chart = callTool(server.url, 'render_chart', body, store.ownerKey).finally(() => (answered = true));
      const polls: number[] = [];
      while (!answered) {
        const t = performance.now();
        const r = await http(server.url, { path: '/v1' });
        polls.push(performance.now() - t);
        expect(r.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const r = await chart;
      const took = performance.now() - started;
      expect(polls.length, name).toBeGreaterThan(0);
      expect(Math.max(...polls), `${name}: slowest of ${polls.length} polls`).toBeLessThan(1_000);
      // A picture or a clear refusal, within the renderer's 10 s limit and some slack for a busy machine.
      expect([200, 400], `${name}: ${r.body.slice(0, 300)}`).toContain(r.status);
      expect(took, name).toBeLessThan(30_000);
      if (name === 'ranking') {
        expect(r.status).toBe(400);
        expect(r.json().error.message).toMatch(
          /vega_lite_spec\.encoding\.y.*13,000 categories of "k" would make the chart .* high .*limit is 4,000 px/,
        );
      }
      if (r.status === 400) expect(r.json().error.message).not.toMatch(/call stack|\n\s+at /);
    }
  });
});
