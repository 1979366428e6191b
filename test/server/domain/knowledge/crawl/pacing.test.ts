import { describe, expect, it } from 'vitest';
import { HostPacer } from '../../../../../server/domain/knowledge/crawl/pacing.js';

const elapsed = async (fn: () => Promise<unknown>) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

describe('HostPacer', () => {
  it('does not wait for a first request, or with no delay at all', async () => {
    const pacer = new HostPacer();
    expect(await elapsed(() => pacer.wait('http://a.test', 500))).toBeLessThan(250);
    const free = new HostPacer();
    const burst = async () => {
      for (let i = 0; i < 20; i++) await free.wait('http://a.test', 0);
    };
    expect(await elapsed(burst)).toBeLessThan(250);
  });

  it('spaces consecutive and concurrent requests to one origin by the delay', async () => {
    const pacer = new HostPacer();
    const starts: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      [0, 1, 2].map(() => pacer.wait('http://a.test', 150).then(() => starts.push(performance.now() - t0))),
    );
    starts.sort((a, b) => a - b);
    expect(starts[0]).toBeLessThan(100);
    expect(starts[1]).toBeGreaterThanOrEqual(140);
    expect(starts[2]).toBeGreaterThanOrEqual(290);
  });

  it('keeps origins independent', async () => {
    const pacer = new HostPacer();
    await pacer.wait('http://a.test', 1000);
    expect(await elapsed(() => pacer.wait('http://b.test', 1000))).toBeLessThan(250);
  });

  it('applies the configured minimum when robots.txt asks for less', async () => {
    const pacer = new HostPacer({ minDelayMs: 120 });
    await pacer.wait('http://a.test', 0);
    expect(await elapsed(() => pacer.wait('http://a.test', 0))).toBeGreaterThanOrEqual(110);
  });

  it('can be cancelled while waiting', async () => {
    const pacer = new HostPacer();
    await pacer.wait('http://a.test', 10_000);
    const controller = new AbortController();
    const waiting = pacer.wait('http://a.test', 10_000, controller.signal);
    controller.abort(new Error('job cancelled'));
    await expect(waiting).rejects.toThrow('job cancelled');
  });
});
