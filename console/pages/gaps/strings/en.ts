/** The knowledge-gaps page's strings. Other languages may leave keys out: English shows instead. */
export const en = {
  title: 'Knowledge gaps',
  lead: 'Questions visitors asked that your chatbot could not answer. Answer one here: your answer is sent to the visitor who asked, and given to everyone who asks it next.',
  show: 'Show',
  open: 'Unanswered',
  answered: 'Answered',
  none: 'No unanswered questions. Well done.',
  noneAnswered: 'No question has been answered here yet.',
  asked: 'Asked {date}',
  answeredOn: 'Answered {date}',
  answer: 'Your answer',
  save: 'Send answer',
  saving: 'Sending…',
  update: 'Change answer',
  saved: 'Saved as a custom response. The visitor who asked has been sent your answer.',
  current: 'Current answer',
  delete: 'Dismiss',
  confirmDelete: 'Dismiss this question without answering it?',
  keep: 'Keep',
  noWrite: 'Your role can see these questions but not answer them.',
  more: 'Show more',
};

export type Strings = typeof en;
