/**
 * Scrapes `/metrics` and reads it with a real parser of the Prometheus text exposition format
 * (parse-prometheus-text-format, prom2json's output shape), so a test sees what Prometheus sees.
 */
import parse from 'parse-prometheus-text-format';

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
interface Family {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

export class Scrape {
  readonly families: Map<string, Family>;
  /** Every sample by its own name (`x_bucket`, `x_count`, `x_sum` of a histogram too). */
  private readonly series = new Map<string, Sample[]>();
  constructor(readonly text: string) {
    this.families = new Map((parse(text) as Family[]).map((f) => [f.name, f]));
    // The parser folds a histogram's labelled series into one (their labels lost); read as
    // untyped, each `_count` keeps its labels.
    for (const f of parse(text.replace(/^# TYPE (\S+) (histogram|summary)$/gm, '# TYPE $1 untyped')) as Family[]) {
      this.series.set(f.name, [...(this.series.get(f.name) ?? []), ...f.metrics]);
    }
  }

  family(name: string): Family {
    const f = this.families.get(name);
    if (!f) throw new Error(`no metric family ${name} in the scrape`);
    return f;
  }

  /** The sum of the samples whose labels include `labels`: a counter's or gauge's value, a histogram's count; 0 when none. */
  value(name: string, labels: Record<string, string> = {}): number {
    const family = this.family(name);
    const samples = family.type === 'HISTOGRAM' ? (this.series.get(`${name}_count`) ?? []) : family.metrics;
    return samples
      .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
      .reduce((n, m) => n + Number(m.value ?? 0), 0);
  }
}

export async function scrape(url: string, token: string): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
  return new Scrape(await res.text());
}
