/** What the widget's routes declare alike. */
import Type from 'typebox';

export const PUBLIC = { public: true } as const;
export const ChatbotParams = Type.Object({ chatbotId: Type.String({ minLength: 1, maxLength: 64 }) });
/** A value typed in shared/protocol.ts, the wire contract the widget shares, and written as it is. */
export const Shaped = (name: string) => Type.Unknown({ description: `${name} (shared/protocol.ts)` });
