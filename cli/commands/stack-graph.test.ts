/** The DOT text of `stack graph`, on the cases of Pulumi's own stack_graph_test.go. */
import { describe, expect, it } from 'vitest';
import { dependencyGraphDot, type GraphResource } from './stack-graph.js';

/** Pulumi's test options: no colors (the zero value, not the flags' defaults). */
const PLAIN = { ignoreParentEdges: false, ignoreDependencyEdges: false, dependencyEdgeColor: '', parentEdgeColor: '', shortNodeName: false };

describe('stack graph DOT output', () => {
  it('prints a single node, and a DOT fragment at the top', () => {
    // Arrange
    const snap: GraphResource[] = [{ urn: 'urn:pulumi' }];

    // Act
    const plain = dependencyGraphDot(snap, PLAIN);
    const fragment = dependencyGraphDot(snap, { ...PLAIN, dotFragment: '[node shape=rect]\n[edge penwidth=2]' });

    // Assert
    expect(plain).toBe('strict digraph {\n    Resource0 [label="urn:pulumi"];\n}\n');
    expect(fragment).toBe('strict digraph {\n[node shape=rect]\n[edge penwidth=2]\n    Resource0 [label="urn:pulumi"];\n}\n');
  });

  it('numbers nodes as the walk meets them and labels dependency edges with their sorted properties', () => {
    // Arrange: Pulumi's "output is deterministic" snapshot
    const urn = (t: string, n: string) => `urn:pulumi:dev::test::pkg:mod:${t}::${n}`;
    const [a, b, c, d] = [urn('ResA', 'a'), urn('ResB', 'b'), urn('ResC', 'c'), urn('ResD', 'd')];
    const snap: GraphResource[] = [
      { urn: a },
      { urn: b, dependencies: [a] },
      { urn: c, dependencies: [a, b] },
      { urn: d, dependencies: [a], propertyDependencies: { propZ: [a], propA: [a], propM: [a] } },
    ];

    // Act
    const dot = dependencyGraphDot(snap, { ...PLAIN, shortNodeName: true });

    // Assert
    expect(dot).toBe(
      [
        'strict digraph {',
        '    Resource0 [label="a"];',
        '    Resource0 -> Resource1;',
        '    Resource0 -> Resource2;',
        '    Resource0 -> Resource3 [label = "propA, propM, propZ"];',
        '    Resource1 [label="b"];',
        '    Resource1 -> Resource2;',
        '    Resource2 [label="c"];',
        '    Resource3 [label="d"];',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('labels short names with everything after the type, and leaves out the edges asked to', () => {
    // Arrange
    const parent = 'urn:pulumi:dev::pets::random:index/randomPet:RandomPet::parent';
    const child = 'urn:pulumi:dev::pets::random:index/randomPet:RandomPet::child::with::colons';
    const snap: GraphResource[] = [{ urn: parent }, { urn: child, parent, dependencies: [parent] }];

    // Act
    const noParents = dependencyGraphDot(snap, { ...PLAIN, shortNodeName: true, ignoreParentEdges: true, dependencyEdgeColor: 'red' });
    const noDependencies = dependencyGraphDot(snap, { ...PLAIN, ignoreDependencyEdges: true, parentEdgeColor: 'blue' });

    // Assert: `child` sorts before `parent`
    expect(noParents).toBe('strict digraph {\n    Resource0 [label="child::with::colons"];\n    Resource1 [label="parent"];\n    Resource1 -> Resource0 [color = "red"];\n}\n');
    expect(noDependencies).toBe(`strict digraph {\n    Resource0 [label="${child}"];\n    Resource0 -> Resource1 [color = "blue"];\n    Resource1 [label="${parent}"];\n}\n`);
  });
});
