import { memo } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './playbook.css';
import { kindTitle, type FlowNode } from './graph';

/** One node on the canvas: its kind, name and id, marked with its problems, path order or diff. */
function PbNode({ data, selected }: NodeProps<FlowNode>) {
  const { node, marks } = data;
  const cls = ['pb-node', `pb-kind-${node.kind}`];
  if (selected) cls.push('pb-selected');
  if (marks.problems?.length) cls.push('pb-problem');
  if (marks.status) cls.push(`pb-status-${marks.status}`);
  if (marks.diff) cls.push(`pb-diff-${marks.diff}`);
  return (
    <div className={cls.join(' ')} data-node-id={node.id} data-problems={marks.problems?.length ?? 0} data-on-path={marks.order ? 'true' : undefined}>
      {node.kind !== 'trigger' && <Handle type="target" position={Position.Top} />}
      <div className="pb-head">
        <span className="pb-kind">{kindTitle(node.kind)}</span>
        {marks.order && <span className="pb-order" aria-label={`step ${marks.order.join(', ')}`}>{marks.order.join(',')}</span>}
        {marks.diff && <span className="pb-diff-tag">{marks.diff}</span>}
      </div>
      <div className="pb-name">{node.name || node.id}</div>
      {marks.problems?.map((p) => <div key={p} className="pb-msg" role="note">{p}</div>)}
      {marks.detail && <div className="pb-detail">{marks.detail}</div>}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

export default memo(PbNode);
