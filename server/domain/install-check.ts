/**
 * Whether a page's HTML carries the widget for a chatbot: a `<script>` whose src ends in
 * /widget.js and whose data-chatbot-id is the chatbot's (the snippet of the console's install
 * page), or an iframe of its hosted chat page (/chat/{id}). Only the HTML as served is read: a
 * snippet a framework adds at run time is not in it.
 */
export interface SnippetFinding {
  /** The widget for this chatbot is on the page. */
  found: boolean;
  /** widget.js is on the page but for other chatbots: their ids (a copy-paste from another chatbot). */
  otherChatbotIds: string[];
}

const TAG = /<(script|iframe)\b([^>]*)>/gi;
const attribute = (attrs: string, name: string) =>
  new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i')
    .exec(attrs)
    ?.slice(1)
    .find((v) => v !== undefined);

export function findSnippet(html: string, chatbotId: string): SnippetFinding {
  let found = false;
  const others = new Set<string>();
  for (const [, tag, attrs] of html.matchAll(TAG)) {
    const src = attribute(attrs, 'src') ?? '';
    if (tag.toLowerCase() === 'script' && /\/widget\.js(?:[?#]|$)/.test(src)) {
      const id = attribute(attrs, 'data-chatbot-id');
      if (id === chatbotId) found = true;
      else if (id) others.add(id);
    } else if (tag.toLowerCase() === 'iframe' && src.split(/[?#]/)[0].endsWith(`/chat/${chatbotId}`)) found = true;
  }
  return { found, otherChatbotIds: [...others] };
}
