import { describe, expect, it } from 'vitest';
import {
  CUSTOM_RESPONSE_MIN_JACCARD,
  jaccard,
  matchCustomResponse,
} from '../../../../server/domain/answers/custom-responses.js';
import { ANSWER_MESSAGES, messagesFor } from '../../../../server/domain/answers/messages.js';
import {
  applyUserPrompt,
  buildPrompt,
  readSettings,
  temperatureFor,
} from '../../../../server/domain/answers/prompt.js';
import { relevance, RELEVANCE_THRESHOLD } from '../../../../server/domain/answers/relevance.js';
import { stem, termSet } from '../../../../server/domain/answers/text.js';
import { LOCALES } from '../../../../shared/settings.js';
import { hit } from './fixtures.js';

describe('settings the engine reads', () => {
  it('defaults like shared/settings.ts and clamps out-of-range values', () => {
    expect(readSettings({})).toEqual({
      gptModel: 'gpt-4.1-mini',
      creativity: 'BALANCED',
      temperature: null,
      topK: 4,
      historyCount: 10,
      hideSources: false,
      disableSmartFollowUpPrompts: false,
      smartFollowUpPromptsCount: 3,
      systemPrompt: null,
      userPrompt: null,
      locale: 'en',
      promptId: null,
      personaId: null,
    });
    const s = readSettings({
      gptModel: 'gpt-9',
      topK: 99,
      historyCount: -1,
      smartFollowUpPromptsCount: 0,
      temperature: 7,
      localization: { locale: 'ja' },
      systemPrompt: '  ',
    });
    expect(s).toMatchObject({
      gptModel: 'gpt-4.1-mini',
      topK: 5,
      historyCount: 0,
      smartFollowUpPromptsCount: 1,
      temperature: 2,
      locale: 'ja',
      systemPrompt: null,
    });
    expect(readSettings({ localization: { locale: 'xx' } }).locale).toBe('en');
  });

  it('temperature: the active instruction wins, else STRICT 0 / BALANCED 0.5 / CREATIVE 1 / CUSTOM the setting', () => {
    const instruction = { id: 'i', title: 't', instructions: 'x', temperature: 0.37 };
    expect(temperatureFor(readSettings({ creativity: 'CREATIVE' }), instruction)).toBe(0.37);
    expect(temperatureFor(readSettings({ creativity: 'CREATIVE' }), { ...instruction, temperature: null })).toBe(1);
    expect(temperatureFor(readSettings({ creativity: 'STRICT' }), null)).toBe(0);
    expect(temperatureFor(readSettings({ creativity: 'BALANCED' }), null)).toBe(0.5);
    expect(temperatureFor(readSettings({ creativity: 'CUSTOM', temperature: 1.42 }), null)).toBe(1.42);
    expect(temperatureFor(readSettings({ creativity: 'CUSTOM' }), null)).toBe(0.5);
  });
});

describe('the prompt', () => {
  it('wraps the question in userPrompt: a {question} placeholder, or the question after the template', () => {
    expect(applyUserPrompt('Q: {question} (be kind)', 'why?')).toBe('Q: why? (be kind)');
    expect(applyUserPrompt('Q: {{ question }}!', '$& $1')).toBe('Q: $& $1!');
    expect(applyUserPrompt('Answer as a sailor.', 'why?')).toBe('Answer as a sailor.\n\nwhy?');
    expect(applyUserPrompt(null, 'why?')).toBe('why?');
  });

  it('lists the confidential texts for the output filter, and states the language and follow-up count', () => {
    const settings = readSettings({
      systemPrompt: 'Tone: warm.',
      userPrompt: 'Visitor: {question}',
      localization: { locale: 'pt' },
    });
    const { messages, secrets } = buildPrompt({
      question: 'q?',
      history: [],
      passages: [{ ...hit({ text: 'Body text.', title: 'Doc', headingPath: ['A', 'B'] }), n: 1 }],
      instruction: { id: 'i', title: 't', instructions: 'Owner instruction.', temperature: null },
      persona: { id: 'p', title: 'p', instructions: 'Persona text.' },
      settings,
      followUpCount: 4,
      strings: messagesFor('pt'),
    });
    expect(messages.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(messages[0].content).toContain('reply in Portuguese');
    expect(messages[0].content).toContain('up to 4 short questions');
    expect(messages[1].content).toBe('Knowledge passages (numbered):\n\n[1] Doc — A > B\nBody text.');
    expect(messages[2].content).toBe('Visitor: q?');
    expect(secrets).toEqual([messages[0].content, 'Persona text.', 'Owner instruction.', 'Tone: warm.', 'Visitor:  ']);
  });
});

describe('locale strings', () => {
  it('every locale of shared/settings.ts has every string; unknown locales fall back to English', () => {
    const keys = Object.keys(ANSWER_MESSAGES.en).sort();
    for (const locale of LOCALES) {
      expect(Object.keys(ANSWER_MESSAGES[locale] ?? {}).sort(), locale).toEqual(keys);
      expect(ANSWER_MESSAGES[locale].tellMeAbout, locale).toContain('{topic}');
    }
    expect(messagesFor('pt-BR')).toBe(ANSWER_MESSAGES.pt);
    expect(messagesFor('xx')).toBe(ANSWER_MESSAGES.en);
    expect(messagesFor(null)).toBe(ANSWER_MESSAGES.en);
  });
});

describe('custom responses', () => {
  const responses = [
    { id: 'hours', question: 'What are your opening hours?', answer: 'Mon–Fri 9–17.' },
    { id: 'reset', question: 'How do I reset my account password?', answer: 'Use “Forgot password”.' },
    { id: 'short', question: 'Pricing', answer: 'See /pricing.' },
  ];

  it('matches the same question once normalised (case, punctuation, spacing)', () => {
    expect(matchCustomResponse('  what are your OPENING hours ', responses)).toEqual({
      response: responses[0],
      similarity: 1,
    });
    expect(matchCustomResponse('pricing!', responses)?.response.id).toBe('short');
  });

  it(`matches a close question (content-term Jaccard >= ${CUSTOM_RESPONSE_MIN_JACCARD}), not a different one`, () => {
    expect(matchCustomResponse('How can I reset the password of my account?', responses)?.response.id).toBe('reset');
    // "open"/"opening" and "hours"/"hour" stem alike; "when", "you", "please" are not content terms.
    expect(matchCustomResponse('When are you open? Opening hours please', responses)?.response.id).toBe('hours');
    expect(matchCustomResponse('How do I reset my router?', responses)).toBeNull();
    expect(matchCustomResponse('Pricing for teams', responses)).toBeNull(); // one-term questions match exactly only
    expect(matchCustomResponse('', responses)).toBeNull();
  });

  it('jaccard and stems', () => {
    expect(jaccard(['a', 'b', 'c'], ['a', 'b', 'c', 'd'])).toBe(0.75);
    expect(jaccard([], [])).toBe(0);
    expect(stem('bodies')).toBe(stem('body'));
    expect(stem('running')).toBe('run');
    expect(termSet('How do I reset my account password?')).toEqual(['reset', 'account', 'password']);
  });
});

describe('the relevance gate', () => {
  const hooks = hit({
    title: 'Hooks',
    headingPath: ['Hooks', 'onRequest'],
    text: 'The onRequest hook runs before the handler of every request.',
  });
  it(`passes a question the passages talk about and stops one they do not (threshold ${RELEVANCE_THRESHOLD})`, () => {
    expect(relevance('When does the onRequest hook run?', [hooks])).toMatchObject({
      relevant: true,
      union: 1,
      best: 1,
    });
    const off = relevance('How long should I boil an egg?', [hooks]);
    expect(off.relevant).toBe(false);
    expect(off.score).toBe(0);
    expect(relevance('hooks for fly fishing', [hooks]).relevant).toBe(false);
    expect(relevance('anything', []).relevant).toBe(false);
  });

  it('passes a score exactly at the threshold and stops one a term below it', () => {
    // Ten question terms: the passages together hold 6 (union 0.6), the best one 5 (0.5), so the
    // score is (0.6 + 0.5) / 2 = 0.55, the threshold itself.
    expect(RELEVANCE_THRESHOLD).toBe(0.55);
    const question = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet';
    const at = relevance(question, [hit({ text: 'alpha bravo charlie delta echo' }), hit({ text: 'foxtrot' })]);
    expect(at).toMatchObject({ union: 0.6, best: 0.5, score: RELEVANCE_THRESHOLD, relevant: true });
    const below = relevance(question, [hit({ text: 'alpha bravo charlie delta echo' })]);
    expect(below).toMatchObject({ union: 0.5, best: 0.5, relevant: false });
  });
});
