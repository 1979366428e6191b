export const en = {
  title: 'Leads',
  lead: 'Contact details visitors left in conversations, newest first.',
  export: 'Export CSV',
  loading: 'Loading leads…',
  empty: 'No leads yet. Turn on lead capture under Appearance → Lead capture, and visitors can leave their details.',
  count: '{count} leads',
  captured: 'Captured',
  name: 'Name',
  email: 'E-mail',
  phone: 'Phone',
  failed: 'The leads could not be loaded: {message}',
};

export type Strings = typeof en;
