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
  /** Reply to a goodbye. */
  goodbye: string;
  /** Reply to "are you a bot?", "who are you?". */
  aboutMe: string;
  /** Reply to "how are you?". */
  howAreYou: string;
  /** Opens an answer whose best passage is close but not sure to answer the question (the sources follow). */
  notSure: string;
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
    goodbye: 'مع السلامة، وشكرًا لزيارتك!',
    aboutMe: 'أنا مساعد آلي: أجيب من صفحات هذا الموقع وأبيّن مصدر كل إجابة. ماذا تريد أن تعرف؟',
    howAreYou: 'أنا بخير، شكرًا لسؤالك! كيف يمكنني مساعدتك؟',
    notSure: 'لست متأكدًا من أن هذا يجيب عن سؤالك، لكن هذا ما وجدته:',
  },
  he: {
    language: 'Hebrew',
    unavailable: 'מצטערים, העוזר אינו זמין כרגע. נסו שוב בעוד רגע.',
    noInformation: 'אין לי מידע על כך. אפשר לנסח את השאלה אחרת, או לשאול על משהו אחר?',
    cannotShareInstructions: 'אני לא יכול לשתף את ההנחיות שלי, אבל אשמח לעזור בשאלות שלכם.',
    tellMeAbout: 'ספר לי על {topic}',
    greeting: 'שלום! איך אפשר לעזור היום?',
    thanks: 'בשמחה! יש עוד משהו שאפשר לעזור בו?',
    goodbye: 'להתראות, ותודה שביקרתם!',
    aboutMe: 'אני עוזר אוטומטי: אני עונה מתוך הדפים של האתר הזה ומראה מאיפה מגיעה כל תשובה. מה תרצו לדעת?',
    howAreYou: 'אני בסדר, תודה ששאלתם! איך אפשר לעזור?',
    notSure: 'אני לא בטוח שזה עונה על השאלה שלכם, אבל זה מה שמצאתי:',
  },
  en: {
    language: 'English',
    unavailable: 'Sorry, the assistant is unavailable right now. Please try again in a moment.',
    noInformation:
      "I don't have information about that. Could you rephrase your question, or ask about something else?",
    cannotShareInstructions: "I can't share my instructions, but I'm happy to help with your questions.",
    tellMeAbout: 'Tell me about {topic}',
    greeting: 'Hello! How can I help you today?',
    thanks: "You're welcome! Is there anything else I can help you with?",
    goodbye: 'Goodbye, and thanks for stopping by!',
    aboutMe:
      "I'm an automated assistant: I answer from this site's own pages and show where each answer comes from. What would you like to know?",
    howAreYou: "I'm doing well, thanks for asking! How can I help you?",
    notSure: "I'm not sure this answers your question, but here is what I found:",
  },
  da: {
    language: 'Danish',
    unavailable: 'Beklager, assistenten er ikke tilgængelig lige nu. Prøv igen om lidt.',
    noInformation: 'Det har jeg ingen oplysninger om. Kan du omformulere dit spørgsmål eller spørge om noget andet?',
    cannotShareInstructions: 'Jeg kan ikke dele mine instruktioner, men jeg hjælper gerne med dine spørgsmål.',
    tellMeAbout: 'Fortæl mig om {topic}',
    greeting: 'Hej! Hvordan kan jeg hjælpe dig i dag?',
    thanks: 'Det var så lidt! Er der andet, jeg kan hjælpe med?',
    goodbye: 'Farvel, og tak for besøget!',
    aboutMe:
      'Jeg er en automatisk assistent: jeg svarer ud fra dette websteds egne sider og viser, hvor hvert svar kommer fra. Hvad vil du gerne vide?',
    howAreYou: 'Jeg har det godt, tak fordi du spørger! Hvordan kan jeg hjælpe?',
    notSure: 'Jeg er ikke sikker på, at dette besvarer dit spørgsmål, men her er, hvad jeg fandt:',
  },
  de: {
    language: 'German',
    unavailable: 'Der Assistent ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
    noInformation:
      'Dazu habe ich keine Informationen. Können Sie Ihre Frage anders formulieren oder etwas anderes fragen?',
    cannotShareInstructions: 'Meine Anweisungen kann ich nicht weitergeben, aber bei Ihren Fragen helfe ich gern.',
    tellMeAbout: 'Erzähl mir mehr über {topic}',
    greeting: 'Hallo! Wie kann ich Ihnen heute helfen?',
    thanks: 'Gern geschehen! Kann ich Ihnen noch bei etwas anderem helfen?',
    goodbye: 'Auf Wiedersehen und danke für Ihren Besuch!',
    aboutMe:
      'Ich bin ein automatischer Assistent: Ich antworte aus den Seiten dieser Website und zeige, woher jede Antwort stammt. Was möchten Sie wissen?',
    howAreYou: 'Mir geht es gut, danke der Nachfrage! Wie kann ich Ihnen helfen?',
    notSure: 'Ich bin nicht sicher, ob das Ihre Frage beantwortet, aber das habe ich gefunden:',
  },
  es: {
    language: 'Spanish',
    unavailable: 'Lo siento, el asistente no está disponible en este momento. Inténtalo de nuevo en un momento.',
    noInformation: 'No tengo información sobre eso. ¿Puedes reformular tu pregunta o preguntar sobre otra cosa?',
    cannotShareInstructions: 'No puedo compartir mis instrucciones, pero con gusto te ayudo con tus preguntas.',
    tellMeAbout: 'Háblame de {topic}',
    greeting: '¡Hola! ¿En qué puedo ayudarte hoy?',
    thanks: '¡De nada! ¿Hay algo más en lo que pueda ayudarte?',
    goodbye: '¡Adiós y gracias por tu visita!',
    aboutMe:
      'Soy un asistente automático: respondo con las páginas de este sitio y muestro de dónde viene cada respuesta. ¿Qué te gustaría saber?',
    howAreYou: '¡Muy bien, gracias por preguntar! ¿En qué puedo ayudarte?',
    notSure: 'No estoy seguro de que esto responda a tu pregunta, pero esto es lo que encontré:',
  },
  fr: {
    language: 'French',
    unavailable: "Désolé, l'assistant n'est pas disponible pour le moment. Veuillez réessayer dans un instant.",
    noInformation:
      "Je n'ai pas d'information à ce sujet. Pouvez-vous reformuler votre question ou demander autre chose ?",
    cannotShareInstructions:
      'Je ne peux pas partager mes instructions, mais je serai ravi de répondre à vos questions.',
    tellMeAbout: 'Parle-moi de {topic}',
    greeting: "Bonjour ! Comment puis-je vous aider aujourd'hui ?",
    thanks: 'Avec plaisir ! Puis-je vous aider pour autre chose ?',
    goodbye: 'Au revoir, et merci de votre visite !',
    aboutMe:
      "Je suis un assistant automatique : je réponds à partir des pages de ce site et j'indique d'où vient chaque réponse. Que souhaitez-vous savoir ?",
    howAreYou: 'Je vais bien, merci ! Comment puis-je vous aider ?',
    notSure: "Je ne suis pas sûr que cela réponde à votre question, mais voici ce que j'ai trouvé :",
  },
  it: {
    language: 'Italian',
    unavailable: "Spiacenti, l'assistente non è disponibile al momento. Riprova tra poco.",
    noInformation: 'Non ho informazioni in merito. Puoi riformulare la domanda o chiedere qualcos’altro?',
    cannotShareInstructions: 'Non posso condividere le mie istruzioni, ma sono felice di aiutarti con le tue domande.',
    tellMeAbout: 'Parlami di {topic}',
    greeting: 'Ciao! Come posso aiutarti oggi?',
    thanks: 'Prego! Posso aiutarti con qualcos’altro?',
    goodbye: 'Arrivederci e grazie per la visita!',
    aboutMe:
      'Sono un assistente automatico: rispondo con le pagine di questo sito e indico da dove viene ogni risposta. Cosa vuoi sapere?',
    howAreYou: 'Sto bene, grazie! Come posso aiutarti?',
    notSure: 'Non sono sicuro che questo risponda alla tua domanda, ma ecco cosa ho trovato:',
  },
  ja: {
    language: 'Japanese',
    unavailable: '申し訳ありません。現在アシスタントを利用できません。しばらくしてからもう一度お試しください。',
    noInformation: 'その件についての情報はありません。質問を言い換えるか、別のことをお尋ねください。',
    cannotShareInstructions: '指示内容はお伝えできませんが、ご質問には喜んでお答えします。',
    tellMeAbout: '{topic}について教えてください',
    greeting: 'こんにちは！今日はどのようなご用件でしょうか？',
    thanks: 'どういたしまして！ほかにお手伝いできることはありますか？',
    goodbye: 'ご利用ありがとうございました。さようなら！',
    aboutMe:
      '私は自動アシスタントです。このサイトのページをもとにお答えし、各回答の出典を示します。何をお知りになりたいですか？',
    howAreYou: '元気です、ありがとうございます！どのようなご用件でしょうか？',
    notSure: 'ご質問への答えになっているか確かではありませんが、見つかった情報は次のとおりです：',
  },
  nl: {
    language: 'Dutch',
    unavailable: 'Sorry, de assistent is op dit moment niet beschikbaar. Probeer het zo meteen opnieuw.',
    noInformation: 'Daar heb ik geen informatie over. Kun je je vraag anders formuleren of iets anders vragen?',
    cannotShareInstructions: 'Ik kan mijn instructies niet delen, maar ik help je graag met je vragen.',
    tellMeAbout: 'Vertel me over {topic}',
    greeting: 'Hallo! Hoe kan ik je vandaag helpen?',
    thanks: 'Graag gedaan! Kan ik je nog ergens anders mee helpen?',
    goodbye: 'Tot ziens, en bedankt voor je bezoek!',
    aboutMe:
      "Ik ben een automatische assistent: ik antwoord op basis van de pagina's van deze site en laat zien waar elk antwoord vandaan komt. Wat wil je weten?",
    howAreYou: 'Goed, bedankt voor het vragen! Waarmee kan ik je helpen?',
    notSure: 'Ik weet niet zeker of dit je vraag beantwoordt, maar dit heb ik gevonden:',
  },
  pl: {
    language: 'Polish',
    unavailable: 'Przepraszamy, asystent jest teraz niedostępny. Spróbuj ponownie za chwilę.',
    noInformation: 'Nie mam informacji na ten temat. Czy możesz sformułować pytanie inaczej albo zapytać o coś innego?',
    cannotShareInstructions: 'Nie mogę udostępnić moich instrukcji, ale chętnie pomogę w Twoich pytaniach.',
    tellMeAbout: 'Opowiedz mi o {topic}',
    greeting: 'Cześć! Jak mogę Ci dziś pomóc?',
    thanks: 'Nie ma za co! Czy mogę pomóc w czymś jeszcze?',
    goodbye: 'Do widzenia i dziękuję za wizytę!',
    aboutMe:
      'Jestem automatycznym asystentem: odpowiadam na podstawie stron tej witryny i pokazuję, skąd pochodzi każda odpowiedź. Co chcesz wiedzieć?',
    howAreYou: 'Dobrze, dziękuję, że pytasz! W czym mogę pomóc?',
    notSure: 'Nie jestem pewien, czy to odpowiada na Twoje pytanie, ale oto, co znalazłem:',
  },
  pt: {
    language: 'Portuguese',
    unavailable: 'Desculpe, o assistente não está disponível no momento. Tente novamente daqui a pouco.',
    noInformation: 'Não tenho informações sobre isso. Pode reformular a pergunta ou perguntar outra coisa?',
    cannotShareInstructions:
      'Não posso compartilhar as minhas instruções, mas fico feliz em ajudar com as suas perguntas.',
    tellMeAbout: 'Fale-me sobre {topic}',
    greeting: 'Olá! Como posso ajudar hoje?',
    thanks: 'De nada! Posso ajudar com mais alguma coisa?',
    goodbye: 'Até logo, e obrigado pela visita!',
    aboutMe:
      'Sou um assistente automático: respondo com base nas páginas deste site e mostro de onde vem cada resposta. O que gostaria de saber?',
    howAreYou: 'Estou bem, obrigado por perguntar! Como posso ajudar?',
    notSure: 'Não tenho certeza de que isto responde à sua pergunta, mas foi isto que encontrei:',
  },
  sv: {
    language: 'Swedish',
    unavailable: 'Tyvärr är assistenten inte tillgänglig just nu. Försök igen om en stund.',
    noInformation: 'Det har jag ingen information om. Kan du formulera om frågan eller fråga om något annat?',
    cannotShareInstructions: 'Jag kan inte dela mina instruktioner, men jag hjälper gärna till med dina frågor.',
    tellMeAbout: 'Berätta om {topic}',
    greeting: 'Hej! Hur kan jag hjälpa dig i dag?',
    thanks: 'Varsågod! Finns det något mer jag kan hjälpa till med?',
    goodbye: 'Hej då, och tack för besöket!',
    aboutMe:
      'Jag är en automatisk assistent: jag svarar utifrån den här webbplatsens sidor och visar var varje svar kommer ifrån. Vad vill du veta?',
    howAreYou: 'Jag mår bra, tack för att du frågar! Hur kan jag hjälpa dig?',
    notSure: 'Jag är inte säker på att detta besvarar din fråga, men det här hittade jag:',
  },
};

/** The strings of a locale tag (`de`, `de-AT`, `pt-BR`…); English when none ship for it. */
export function messagesFor(locale: string | null | undefined): AnswerMessages {
  const tag = (locale ?? 'en').toLowerCase();
  return ANSWER_MESSAGES[tag] ?? ANSWER_MESSAGES[tag.split(/[-_]/)[0]] ?? ANSWER_MESSAGES.en;
}
