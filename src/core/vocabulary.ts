/**
 * The service's vocabulary: the values every layer shares (the vault format, the store, the catalog's wire
 * enums). One list each; the spec's tool catalog is their source.
 */
export const ENTITY_TYPES = ['department', 'person', 'process', 'system', 'problem', 'opportunity', 'kpi'] as const;
export const ENTITY_SOURCES = ['meeting', 'file', 'agent-assumption', 'unclear'] as const;
export const EXTRACTION_STATUSES = ['extracted', 'processing', 'pending', 'failed'] as const;
export const CONFLICT_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export const TASK_STATUSES = ['todo', 'doing', 'done', 'blocked'] as const;
export const TASK_ESTIMATES = ['xs', 's', 'm', 'l', 'xl'] as const;
export const TASK_PRIORITIES = ['none', 'low', 'medium', 'high', 'urgent'] as const;
export const PLAN_STEP_STATUSES = ['planned', 'in-progress', 'done', 'at-risk', 'skipped'] as const;
export const PROPOSERS = ['agent', 'person'] as const;
export const BRIEF_KINDS = ['daily', 'weekly-plan', 'weekly-digest'] as const;
export const FILE_VISIBILITIES = ['public', 'internal'] as const;
export const MEMORY_CHANNELS = ['email', 'mcp', 'chat'] as const;

/** A PowerPoint deck (.pptx), as export_deck writes it. */
export const PPTX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation' as const;
/**
 * Files only this local twin makes (export_deck's decks): the hosted service never lists them, so a pull keeps
 * them where it removes other artifacts upstream no longer has.
 */
export const isLocalOnlyArtifact = (mimeType: string): boolean => mimeType === PPTX_MIME_TYPE;

/** Entity types as headings name them ("Problems", "KPIs"): the findings report, its summary and the deck. */
export const ENTITY_TYPE_PLURALS: Record<string, string> = {
  problem: 'Problems',
  opportunity: 'Opportunities',
  kpi: 'KPIs',
  process: 'Processes',
  system: 'Systems',
  department: 'Departments',
  person: 'People',
};
/** A type's heading; a type outside the vocabulary gets its own name, capitalised. */
export const entityTypePlural = (type: string): string =>
  ENTITY_TYPE_PLURALS[type] ?? type.charAt(0).toUpperCase() + type.slice(1);
