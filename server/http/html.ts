/** Text and attribute values written into the HTML pages the server renders (every character HTML treats specially). */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
