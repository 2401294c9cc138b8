package main

import wherecmd "github.com/imgupd/imgupd/commands/where"

// whereOutput is a "where" answer to print: where's answer (commands/where), and demo --where's.
type whereOutput = wherecmd.Answer
