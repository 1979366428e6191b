/**
 * The follow-up check (issue 23 item 3), an eval hook (hooks.ts): every smart follow-up the
 * answers offered is clicked, that is sent as the message (in a conversation of its own, through
 * the real route), and counted as answered (not refused) and as repeating (the question just
 * asked, or an answer identical to the one it followed). Owner-defined follow-ups are not counted
 * (the eval's chatbots have none). Column `follow-ups`: offered / share answered / share repeating.
 */
import type { EvalHook } from './hooks.js';
import type { Outcome } from './answers-eval.js';
import { normalizeForMatch } from '../../server/domain/answers/text.js';

export const followUpCheck: EvalHook = {
  name: 'follow-ups',
  async corpus({ outcomes, ask }) {
    for (const o of outcomes) {
      const offered = o.unanswered ? [] : (o.answer?.followUps ?? []);
      let answered = 0;
      let repeating = 0;
      for (const f of offered) {
        const { answer } = await ask(f.description);
        if (!answer.unanswered) answered++;
        if (
          normalizeForMatch(f.description) === normalizeForMatch(o.question.q) ||
          answer.text.trim() === o.text.trim()
        )
          repeating++;
      }
      o.extra = {
        ...o.extra,
        followUpsOffered: offered.length,
        followUpsAnswered: answered,
        followUpsRepeating: repeating,
      };
    }
  },
  value(outcomes: Outcome[]) {
    const sum = (k: string) => outcomes.reduce((n, o) => n + (o.extra?.[k] ?? 0), 0);
    const offered = sum('followUpsOffered');
    const f2 = (x: number) => (offered ? (x / offered).toFixed(2) : '   -');
    return `${String(offered).padStart(3)} ${f2(sum('followUpsAnswered'))} ${f2(sum('followUpsRepeating'))}`;
  },
};
