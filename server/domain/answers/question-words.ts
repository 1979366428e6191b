/**
 * What a question asks for, read from its question words, and the words an answer to it uses:
 * "how long" asks for a duration and is answered in days, hours or weeks; "how much" or "cost"
 * for a price, answered in euros or as a fee; "when" or "what time" for days and hours; "where"
 * for a place. The question words themselves are stopwords (or share nothing with the answer:
 * "refund time?" against "within 5 working days"), so without this table they find nothing.
 *
 * One small table per shipped language the eval covers (en, de, es, fr); a question is matched
 * against every language's patterns, since visitors ask in other languages than the site's.
 * Only the answer words the chatbot's knowledge uses are searched for (expansion.ts).
 */

export type Asks = 'duration' | 'price' | 'time' | 'place';

const PATTERNS: Record<Asks, RegExp> = {
  duration:
    /\b(how long|how soon|how quickly|how fast|how many (days|hours|weeks|months|minutes)|time)\b|\b(wie lange|wie schnell|wie viele (tage|stunden|wochen))|(cuánto tiempo|cuánto tarda|cuántos días|cuántas horas|con cuánta anticipación)|(combien de temps|combien de jours)/i,
  price:
    /\b(how much|cost|costs|price|prices|pricing|expensive|cheap|fee|fees|charge|pay)\b|\b(wie viel|wieviel|kostet|kosten|preis|teuer|gebühr)|(cuánto cuesta|cuánto vale|cuánto es|precio|cuesta|tarifa)|(combien coûte|combien ça coûte|prix|coût)/i,
  time: /\b(when|what time|which days?|what days?|open|opening)\b|\b(wann|um wie viel uhr|welche tage|öffnet|geöffnet)|(cuándo|a qué hora|qué días|abren|abierto)|(quand|à quelle heure|quels jours|ouvert)/i,
  place: /\b(where|which city|what address)\b|\b(wo|wohin)\b|(dónde|adónde)|(\boù\b)/i,
};

const ANSWER_WORDS: Record<Asks, string> = {
  duration: `days day hours hour weeks week minutes minute months month years within working business
    tage tagen stunden stunde wochen woche minuten monate innerhalb werktage
    días día horas hora semanas semana minutos meses dentro hábiles
    jours jour heures heure semaines minutes mois ouvrés`,
  price: `price prices cost costs fee fees eur euro euros usd dollars free charge charged per
    preis preise kosten kostet gebühr gebühren kostenlos
    precio precios cuesta cuestan tarifa tarifas gratis gratuito
    prix coût coûte frais gratuit tarif`,
  time: `monday tuesday wednesday thursday friday saturday sunday weekdays weekends daily am pm noon
    montag dienstag mittwoch donnerstag freitag samstag sonntag uhr täglich
    lunes martes miércoles jueves viernes sábado domingo horario
    lundi mardi mercredi jeudi vendredi samedi dimanche`,
  place: `street address located location city road avenue square
    straße adresse stadt platz
    calle dirección ciudad plaza
    rue adresse ville place`,
};

const ANSWERS: Record<Asks, string[]> = Object.fromEntries(
  Object.entries(ANSWER_WORDS).map(([k, v]) => [k, v.split(/\s+/).filter(Boolean)]),
) as Record<Asks, string[]>;

/** What the question asks for (possibly several: "how much and when"). */
export function asks(question: string): Asks[] {
  return (Object.keys(PATTERNS) as Asks[]).filter((k) => PATTERNS[k].test(question));
}

/** The question without the words that say what it asks for ("What is the cost?" -> "What is the ?"). */
export function withoutAskWords(question: string): string {
  return Object.values(PATTERNS).reduce((q, re) => q.replace(new RegExp(re.source, 'gi'), ' '), question);
}

/** The words an answer of that kind uses, in every shipped language. */
export const answerWords = (kind: Asks): readonly string[] => ANSWERS[kind];
