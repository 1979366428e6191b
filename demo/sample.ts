/** The demo chatbot's knowledge and starters (seed.ts); the answers tests ask the starters of it. */
export const SAMPLE = `# Garden Supply Co. help

## Delivery
Orders placed before 2 pm ship the same day. Delivery takes two working days in the country and five to seven days abroad. Shipping is free above 50 euros.

## Returns
Items can be returned within 30 days. Refunds are paid within 5 business days after the parcel arrives. Plants can be returned within 7 days if they arrive damaged.

## Watering
Water seedlings every morning. Established plants need water twice a week in summer and once every two weeks in winter.`;

export const STARTERS: [string, string][] = [
  ['Delivery times', 'How long does delivery take?'],
  ['Returns', 'How do returns work?'],
  ['Watering', 'How often should I water my plants?'],
];
