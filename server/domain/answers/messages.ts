/**
 * The text the answer engine writes itself, per locale of shared/settings.ts LOCALES (the
 * chatbot's `localization.locale`; null or unknown means English). Replies a language model
 * writes follow the visitor's language instead; these are for when no model speaks.
 */
export interface AnswerMessages {
  /** The language's English name, for the prompt ("reply in German"). */
  language: string;
  /** The provider failed (timeout, errors after retries): nothing was generated. */
  unavailable: string;
  /** The knowledge has nothing relevant enough to the question. */
  noInformation: string;
  /** An answer would have quoted the chatbot's instructions; it is replaced by this. */
  cannotShareInstructions: string;
  /** A follow-up suggestion's message from a passage heading; `{topic}` is the heading. */
  tellMeAbout: string;
  /** Reply of the built-in answerer to a greeting. */
  greeting: string;
  /** Reply of the built-in answerer to thanks. */
  thanks: string;
}

export const ANSWER_MESSAGES: Record<string, AnswerMessages> = {
  ar: {
    language: 'Arabic',
    unavailable: 'عذرًا، المساعد غير متاح الآن. يُرجى المحاولة بعد قليل.',
    noInformation: 'ليست لديّ معلومات عن ذلك. هل يمكنك إعادة صياغة سؤالك، أو السؤال عن شيء آخر؟',
    cannotShareInstructions: 'لا يمكنني مشاركة تعليماتي، لكن يسعدني أن أساعدك في أسئلتك.',
    tellMeAbout: 'أخبرني عن {topic}',
    greeting: 'مرحبًا! كيف يمكنني مساعدتك اليوم؟',
    thanks: 'على الرحب والسعة! هل هناك شيء آخر يمكنني مساعدتك فيه؟',
  },
  he: {
    language: 'Hebrew',
    unavailable: 'מצטערים, העוזר אינו זמין כרגע. נסו שוב בעוד רגע.',
    noInformation: 'אין לי מידע על כך. אפשר לנסח את השאלה אחרת, או לשאול על משהו אחר?',
    cannotShareInstructions: 'אני לא יכול לשתף את ההנחיות שלי, אבל אשמח לעזור בשאלות שלכם.',
    tellMeAbout: 'ספר לי על {topic}',
    greeting: 'שלום! איך אפשר לעזור היום?',
    thanks: 'בשמחה! יש עוד משהו שאפשר לעזור בו?',
  },
  en: {
    language: 'English',
    unavailable: 'Sorry, the assistant is unavailable right now. Please try again in a moment.',
    noInformation: "I don't have information about that. Could you rephrase your question, or ask about something else?",
    cannotShareInstructions: "I can't share my instructions, but I'm happy to help with your questions.",
    tellMeAbout: 'Tell me about {topic}',
    greeting: 'Hello! How can I help you today?',
    thanks: "You're welcome! Is there anything else I can help you with?",
  },
  da: {
    language: 'Danish',
    unavailable: 'Beklager, assistenten er ikke tilgængelig lige nu. Prøv igen om lidt.',
    noInformation: 'Det har jeg ingen oplysninger om. Kan du omformulere dit spørgsmål eller spørge om noget andet?',
    cannotShareInstructions: 'Jeg kan ikke dele mine instruktioner, men jeg hjælper gerne med dine spørgsmål.',
    tellMeAbout: 'Fortæl mig om {topic}',
    greeting: 'Hej! Hvordan kan jeg hjælpe dig i dag?',
    thanks: 'Det var så lidt! Er der andet, jeg kan hjælpe med?',
  },
  de: {
    language: 'German',
    unavailable: 'Der Assistent ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
    noInformation: 'Dazu habe ich keine Informationen. Können Sie Ihre Frage anders formulieren oder etwas anderes fragen?',
    cannotShareInstructions: 'Meine Anweisungen kann ich nicht weitergeben, aber bei Ihren Fragen helfe ich gern.',
    tellMeAbout: 'Erzähl mir mehr über {topic}',
    greeting: 'Hallo! Wie kann ich Ihnen heute helfen?',
    thanks: 'Gern geschehen! Kann ich Ihnen noch bei etwas anderem helfen?',
  },
  es: {
    language: 'Spanish',
    unavailable: 'Lo siento, el asistente no está disponible en este momento. Inténtalo de nuevo en un momento.',
    noInformation: 'No tengo información sobre eso. ¿Puedes reformular tu pregunta o preguntar sobre otra cosa?',
    cannotShareInstructions: 'No puedo compartir mis instrucciones, pero con gusto te ayudo con tus preguntas.',
    tellMeAbout: 'Háblame de {topic}',
    greeting: '¡Hola! ¿En qué puedo ayudarte hoy?',
    thanks: '¡De nada! ¿Hay algo más en lo que pueda ayudarte?',
  },
  fr: {
    language: 'French',
    unavailable: "Désolé, l'assistant n'est pas disponible pour le moment. Veuillez réessayer dans un instant.",
    noInformation: "Je n'ai pas d'information à ce sujet. Pouvez-vous reformuler votre question ou demander autre chose ?",
    cannotShareInstructions: 'Je ne peux pas partager mes instructions, mais je serai ravi de répondre à vos questions.',
    tellMeAbout: 'Parle-moi de {topic}',
    greeting: "Bonjour ! Comment puis-je vous aider aujourd'hui ?",
    thanks: "Avec plaisir ! Puis-je vous aider pour autre chose ?",
  },
  it: {
    language: 'Italian',
    unavailable: "Spiacenti, l'assistente non è disponibile al momento. Riprova tra poco.",
    noInformation: 'Non ho informazioni in merito. Puoi riformulare la domanda o chiedere qualcos’altro?',
    cannotShareInstructions: 'Non posso condividere le mie istruzioni, ma sono felice di aiutarti con le tue domande.',
    tellMeAbout: 'Parlami di {topic}',
    greeting: 'Ciao! Come posso aiutarti oggi?',
    thanks: 'Prego! Posso aiutarti con qualcos’altro?',
  },
  ja: {
    language: 'Japanese',
    unavailable: '申し訳ありません。現在アシスタントを利用できません。しばらくしてからもう一度お試しください。',
    noInformation: 'その件についての情報はありません。質問を言い換えるか、別のことをお尋ねください。',
    cannotShareInstructions: '指示内容はお伝えできませんが、ご質問には喜んでお答えします。',
    tellMeAbout: '{topic}について教えてください',
    greeting: 'こんにちは！今日はどのようなご用件でしょうか？',
    thanks: 'どういたしまして！ほかにお手伝いできることはありますか？',
  },
  nl: {
    language: 'Dutch',
    unavailable: 'Sorry, de assistent is op dit moment niet beschikbaar. Probeer het zo meteen opnieuw.',
    noInformation: 'Daar heb ik geen informatie over. Kun je je vraag anders formuleren of iets anders vragen?',
    cannotShareInstructions: 'Ik kan mijn instructies niet delen, maar ik help je graag met je vragen.',
    tellMeAbout: 'Vertel me over {topic}',
    greeting: 'Hallo! Hoe kan ik je vandaag helpen?',
    thanks: 'Graag gedaan! Kan ik je nog ergens anders mee helpen?',
  },
  pl: {
    language: 'Polish',
    unavailable: 'Przepraszamy, asystent jest teraz niedostępny. Spróbuj ponownie za chwilę.',
    noInformation: 'Nie mam informacji na ten temat. Czy możesz sformułować pytanie inaczej albo zapytać o coś innego?',
    cannotShareInstructions: 'Nie mogę udostępnić moich instrukcji, ale chętnie pomogę w Twoich pytaniach.',
    tellMeAbout: 'Opowiedz mi o {topic}',
    greeting: 'Cześć! Jak mogę Ci dziś pomóc?',
    thanks: 'Nie ma za co! Czy mogę pomóc w czymś jeszcze?',
  },
  pt: {
    language: 'Portuguese',
    unavailable: 'Desculpe, o assistente não está disponível no momento. Tente novamente daqui a pouco.',
    noInformation: 'Não tenho informações sobre isso. Pode reformular a pergunta ou perguntar outra coisa?',
    cannotShareInstructions: 'Não posso compartilhar as minhas instruções, mas fico feliz em ajudar com as suas perguntas.',
    tellMeAbout: 'Fale-me sobre {topic}',
    greeting: 'Olá! Como posso ajudar hoje?',
    thanks: 'De nada! Posso ajudar com mais alguma coisa?',
  },
  sv: {
    language: 'Swedish',
    unavailable: 'Tyvärr är assistenten inte tillgänglig just nu. Försök igen om en stund.',
    noInformation: 'Det har jag ingen information om. Kan du formulera om frågan eller fråga om något annat?',
    cannotShareInstructions: 'Jag kan inte dela mina instruktioner, men jag hjälper gärna till med dina frågor.',
    tellMeAbout: 'Berätta om {topic}',
    greeting: 'Hej! Hur kan jag hjälpa dig i dag?',
    thanks: 'Varsågod! Finns det något mer jag kan hjälpa till med?',
  },
};

/** The strings of a locale tag (`de`, `de-AT`, `pt-BR`…); English when none ship for it. */
export function messagesFor(locale: string | null | undefined): AnswerMessages {
  const tag = (locale ?? 'en').toLowerCase();
  return ANSWER_MESSAGES[tag] ?? ANSWER_MESSAGES[tag.split(/[-_]/)[0]] ?? ANSWER_MESSAGES.en;
}
