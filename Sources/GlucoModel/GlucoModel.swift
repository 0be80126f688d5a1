@_exported import GrammarEvolution
