import PbNode from './FlowNode';

/** The one node type of playbook drawings. */
export const nodeTypes = { pb: PbNode };
