/**
 * What a message is, in its conversation: small talk (answered briefly, never searched), or a
 * question that depends on the previous one (searched with it only then).
 */
import { describe, expect, it } from 'vitest';
import { greetingLike, smallTalk } from '../../../../server/domain/answers/small-talk.js';
import { dependsOnPrevious, hasNoTopic } from '../../../../server/domain/answers/follow-up-question.js';

describe('small talk', () => {
  it('is recognised in several languages, as a whole message', () => {
    expect(['Hi there', 'good morning!', 'Hola', 'ciao'].map(smallTalk)).toEqual(
      ['Hi there', 'good morning!', 'Hola', 'ciao'].map(() => 'greeting'),
    );
    expect(['thanks!', 'ok thanks', 'Great, thank you so much', 'vielen Dank', 'perfect'].map(smallTalk)).toEqual(
      ['thanks!', 'ok thanks', 'Great, thank you so much', 'vielen Dank', 'perfect'].map(() => 'thanks'),
    );
    expect(['bye', 'Goodbye!', 'thanks, bye', 'tschüss', 'au revoir'].map(smallTalk)).toEqual(
      ['bye', 'Goodbye!', 'thanks, bye', 'tschüss', 'au revoir'].map(() => 'goodbye'),
    );
    expect(
      ['are you a bot?', 'Am I talking to a real person?', 'hi, who are you?', 'bist du ein Bot?'].map(smallTalk),
    ).toEqual(
      ['are you a bot?', 'Am I talking to a real person?', 'hi, who are you?', 'bist du ein Bot?'].map(() => 'aboutMe'),
    );
    expect(['how are you?', 'Hi, how are you doing today?', 'ça va ?'].map(smallTalk)).toEqual(
      ['how are you?', 'Hi, how are you doing today?', 'ça va ?'].map(() => 'howAreYou'),
    );
  });

  it('a message with a question in it is not small talk', () => {
    for (const m of [
      'hello, how do hooks work?',
      'thanks, and how long does delivery take?',
      'Are you open on Sundays?',
      'bye bye plan cancel',
    ])
      expect(smallTalk(m), m).toBeNull();
  });
});

describe('a greeting-like message', () => {
  it('is small talk, or a greeting whose other words only address or please', () => {
    for (const m of ['hi', 'Hello everyone, nice to meet you!', 'hi again', 'good morning team!', 'Hallo zusammen'])
      expect(greetingLike(m), m).toBe(true);
  });

  it('names a topic otherwise', () => {
    for (const m of [
      'hi, how do I cancel?',
      'hello delivery',
      'thanks, and how long does delivery take?',
      'hello, opening hours',
    ])
      expect(greetingLike(m), m).toBe(false);
  });
});

describe('a message that depends on the previous question', () => {
  it('is short and has no topic of its own, opens with a connective or holds a pronoun', () => {
    for (const m of [
      'and for Germany?',
      'how much is it?',
      'what about returns?',
      'Why?',
      'und nach Österreich?',
      '¿y los domingos?',
      'how long does that take?',
    ])
      expect(dependsOnPrevious(m), m).toBe(true);
  });

  it('names its own topic otherwise', () => {
    for (const m of [
      'How long does delivery take?',
      'refund time?',
      'Can I return an item?',
      'Is there gluten free pasta?',
      'How do I reset my password if I no longer have the e-mail?',
    ])
      expect(dependsOnPrevious(m), m).toBe(false);
  });
});

describe('a message with no topic of its own', () => {
  it('only asks for a kind of answer: a price, a duration, a time', () => {
    for (const m of ['What is the cost?', 'what are the fees?', 'How long?', 'price?', 'how much is it?'])
      expect([hasNoTopic(m), dependsOnPrevious(m)], m).toEqual([true, true]);
  });

  it('names a thing besides what it asks for', () => {
    for (const m of [
      'refund time?',
      'How long does delivery take?',
      'What is the cost of the premium plan?',
      'and for Germany?',
    ])
      expect(hasNoTopic(m), m).toBe(false);
  });
});
