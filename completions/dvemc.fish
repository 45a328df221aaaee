# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_dvemc_global_optspecs
    string join \n h/help V/version
end

function __fish_dvemc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_dvemc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_dvemc_using_subcommand
    set -l cmd (__fish_dvemc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c dvemc -n "__fish_dvemc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_needs_command" -s V -l version -d 'Print version'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "explore" -d 'Explore a model\'s state space with a search strategy and report what it found'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "check" -d 'Parse and check a model; print its size in one line'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "ltl2ba" -d 'Print the Büchi automaton of an LTL formula (HOA format, or text)'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "simulate" -d 'Follow one path: random (--random), chosen (--guided) or a file\'s (--replay)'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "strategies" -d 'List the search strategies: what each does, its paper, the options it takes'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "bench" -d 'Benchmark matrices: run, list, report, merge, slurm, compare'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "verify-beem" -d 'Explore BEEM\'s instances up to a size and compare the state counts with BEEM\'s'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "verify-properties" -d 'Check every BEEM property with a recorded answer and compare with BEEM\'s answer'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "verify-jit" -d 'Compare the JIT with the interpreter on every BEEM file, state by state'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "gen" -d 'Print the generated model of a seed (the differential tests\' models)'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "completions" -d 'Print the shell completion script of SHELL'
complete -c dvemc -n "__fish_dvemc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l strategy -d 'Search strategy (`dvemc strategies` lists them)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l backend -d 'Successor generator' -r -f -a "jit\t'Native code generated with Cranelift (the default)'
interp\t'The reference interpreter (the JIT\'s oracle)'"
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l seed -d 'Seed of random choices (caching, highway, bbmc, randomized) [default: 0]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l runs -d 'Repeat the seeded run R times and report means (highway, bbmc, randomized)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l max-states -d 'Stop (exit 4) when one more state than N would be stored' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l time-limit -d 'Stop (exit 4) after this much wall time: 90, 2.5, 30s, 5m, 1h' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l memory-limit -d 'Stop (exit 4) before the search\'s memory passes BYTES: 512M, 4G, none' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l check -d 'State checks: deadlock, assert, error, none [default: assert]' -r -f -a "deadlock\t'A state with no enabled transition'
assert\t'A failed `assert`'
error\t'A run-time error of a transition (e.g. an array index out of range)'
none\t'No state check (explore only)'"
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l goal -d 'Stop at a state that satisfies this DVE expression (repeatable)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l property -d 'Check BEEM property N of the instance (properties.csv)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l ltl -d 'Check an LTL formula, e.g. \'G (P_0.wait -> F P_0.CS)\'' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l ltl-file -d 'Check a property of a DiVinE .ltl file (`#define NAME expr`, `#property formula`)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l ltl-property -d 'Which property of --ltl-file, from 1 [default: 1]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l trace-format -d 'How to print a counterexample: text or json [default: text]' -r -f -a "text\t'Readable text, a step after another'
json\t'One JSON object'"
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l trace-out -d 'Write the counterexample to FILE as JSON, for `dvemc simulate --replay`' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l export -d 'Write the state space to FILE: .aut (Aldebaran) or .dot (Graphviz)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l sample-interval -d 'Keep the counters every SECONDS in the record\'s `samples` (bfs, dfs, randomized)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l progress-interval -d 'Seconds between two progress lines when standard error is not a terminal [default: 5]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l store -d 'Visited set: exact, tree, ctree, compact[:BITS], bitstate[:LOG2M[,K]]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l threads -d 'Threads (bfs, dfs, LTL) [default: bfs --store exact: all cores; else 1]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l partition -d 'How --distributed spreads the states over the ranks: whole, local' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l checkpoint -d 'Go on from FILE, and write it if the search stops (ctree, --distributed)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l cache -d 'Keep at most SIZE states in memory, or P% of the state space' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l replacement -d 'Which cached state to drop when the cache is full [default: random]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l max-visits -d 'End the run (result visit_limit) when visits exceed F × |S| [default: 5]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l sweep-measure -d 'Sweep-line (bfs, dfs) with this progress measure (DVE expressions)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l sweep-level -d 'Sweep-line (bfs, dfs) with the automatic progress measure of level L' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l sweep-derivation -d 'How --sweep-level derives its measure: projection or greedy [default: projection]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l depth-cutoff -d 'The last depth bound [default: go on until the frontier is empty]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l increment -d 'The depth added at each iteration [default: 50]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l dbdfs -d 'Bounded DFS: naive-unsound, naive-sound or threshold [default: threshold]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l frontier -d 'How frontier states are kept: states, traces or tree [default: tree]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l breadth -d 'The breadth bound: most states per queue (required)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l degrade-depth -d 'Graceful degradation from depth D on (bbmc, Algorithm 3)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l memory-states -d 'Memory bound: most states stored (urs, sdrs, rurs, rsdrs; required)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l steps -d 'Most steps [default: 1000000]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l mixing -d 'Probability X of selecting a leaf, not an inner node (urs, rurs)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l restart -d 'Restart state when the memory fills: initial or random (rurs, rsdrs)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l successor-choice -d 'How a step chooses among the successors: state or transition [default: state]' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l cover-targets -d 'Measure cover times of these coverage levels in % of |S| (e.g. 50,90)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l por -d 'Partial-order reduction: stubborn sets (bfs, dfs)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l por-check -d 'Run the reduced and the full search side by side and compare them'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l ignore-property -d 'Explore the plain system of a model that has a property process'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l all-violations -d 'Count every violation instead of stopping at the first (bfs, dfs)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l json -d 'Print one JSON object on standard output (an error too)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l stats -d 'Also print the statistics of BEEM\'s stat.xml files (bfs, dfs)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l export-state-labels -d 'Label the states of a .dot export with their variables (--export)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -s q -l quiet -d 'No progress on standard error (the result is printed as always)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l distributed -d 'Search over the ranks of an MPI job: mpirun -np N dvemc explore --distributed'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l chain-reduction -d 'Single-successor chain reduction (state-caching paper, Sect. 4.1)'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l edge-lean -d 'Edge-lean reduction with static transition independence'
complete -c dvemc -n "__fish_dvemc_using_subcommand explore" -l stop-when-covered -d 'Stop a run when it reaches the last --cover-targets level'
complete -c dvemc -n "__fish_dvemc_using_subcommand check" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand ltl2ba" -l format -d 'Output: hoa (Hanoi Omega-Automata v1) or text (a readable listing)' -r -f -a "hoa\t''
text\t''"
complete -c dvemc -n "__fish_dvemc_using_subcommand ltl2ba" -l model -d 'Check the atoms against this model (a .dve file or a BEEM instance name)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand ltl2ba" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand ltl2ba" -l negate -d 'The automaton of the negated formula (the one a check searches the product with)'
complete -c dvemc -n "__fish_dvemc_using_subcommand ltl2ba" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l replay -d 'Replay a counterexample FILE (explore --trace-format json, --trace-out, --json)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l seed -d 'Seed of the random choices (--random)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l steps -d 'Most steps to take (--random)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l check -d 'State checks of --random: deadlock, assert, error, none [default: assert]' -r -f -a "deadlock\t'A state with no enabled transition'
assert\t'A failed `assert`'
error\t'A run-time error of a transition (e.g. an array index out of range)'
none\t'No state check (explore only)'"
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l goal -d 'Stop --random at a state that satisfies this DVE expression (repeatable)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l ltl -d 'Replay in the product with this LTL formula\'s automaton (--replay)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l random -d 'Take a uniformly random enabled transition at each step'
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l guided -d 'Choose each step: list the enabled transitions, read the choice from standard input'
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -l all -d 'Replay every step at once, without waiting for Enter (--replay)'
complete -c dvemc -n "__fish_dvemc_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand strategies" -l json -d 'One JSON array of objects (form, family, summary, paper, options)'
complete -c dvemc -n "__fish_dvemc_using_subcommand strategies" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "run" -d 'Run a matrix, or a shard or slice of it, into a results CSV'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "list" -d 'Print the cells of a matrix: key, then the command line'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "report" -d 'Write markdown tables and SVG plots of results files (--html: one page)'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "merge" -d 'Merge results files (e.g. shards): one row per cell key, sorted'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "slurm" -d 'Write a Slurm array-job script: one shard per task, then a merge'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "compare" -d 'Compare a results file with a baseline: the same counters, no slower speed ratios'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and not __fish_seen_subcommand_from run list report merge slurm compare help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l out -d 'The results CSV (appended to; created with its header)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l jobs -d 'Cells run at the same time' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l shard -d 'Run only shard K of N (every N-th cell from the K-th)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l instances -d 'Only the cells on these instances (comma-separated)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l resume -d 'Skip the cells already in --out (after an interruption)'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l retry-failed -d 'With --resume: run the failed cells again'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l rerun -d 'With --resume: run every cell of this run again from its start'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -l quiet -d 'No progress output'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from list" -l shard -d 'Only shard K of N' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from list" -l instances -d 'Only the cells on these instances (comma-separated)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from list" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from report" -l out -d 'Output directory [default: the CSV\'s directory]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from report" -l by -d 'Also split the best-run groups by this grid parameter (repeatable)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from report" -l paper -d 'Render this paper\'s tables instead (from a run of its reproduction matrix)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from report" -l beem -d 'BEEM directory (for --paper, --html) [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from report" -l html -d 'Also write report.html, one self-contained page'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from merge" -l out -d 'The merged CSV (may be one of the inputs)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l shards -d 'Number of shards (array tasks)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l jobs -d 'Workers per task (`--jobs` of each shard, `--cpus-per-task`)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l out -d 'Where the script is written [default: standard output]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l results -d 'Directory of shard files, logs, merged CSV and report [default: results/runs/slurm-<matrix name>]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l time -d 'Slurm time limit of each task (`#SBATCH --time`, e.g. 04:00:00)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l mem -d 'Slurm memory of each task (`#SBATCH --mem`, e.g. 16G)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l partition -d 'Slurm partition' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from slurm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from compare" -l speed-tolerance -d 'Largest allowed relative drop of a speed ratio' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from compare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run a matrix, or a shard or slice of it, into a results CSV'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "list" -d 'Print the cells of a matrix: key, then the command line'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "report" -d 'Write markdown tables and SVG plots of results files (--html: one page)'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Merge results files (e.g. shards): one row per cell key, sorted'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "slurm" -d 'Write a Slurm array-job script: one shard per task, then a merge'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "compare" -d 'Compare a results file with a baseline: the same counters, no slower speed ratios'
complete -c dvemc -n "__fish_dvemc_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-beem" -l max-states -d 'Largest instance to run, by BEEM\'s state count' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-beem" -l out -d 'The CSV report (instance, expected, got, match, seconds, bytes_per_state, result)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-beem" -l memory-limit -d 'Memory budget of each run (as `explore --memory-limit`)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-beem" -l store -d 'The visited set: exact or tree (as `explore --store`)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-beem" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-beem" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-properties" -l max-states -d 'Largest instance to run, by BEEM\'s state count (also each product\'s state budget)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-properties" -l out -d 'The CSV report' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-properties" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-properties" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-jit" -l max-states -d 'Largest state space compared whole' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-jit" -l jobs -d 'Files compared at once' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-jit" -l out -d 'The CSV report (model, result, states, transitions, compile_ms, seconds, detail)' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-jit" -l beem -d 'BEEM directory [default: $BEEM_DIR, else ../shared/beem]' -r -F
complete -c dvemc -n "__fish_dvemc_using_subcommand verify-jit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand gen" -l seed -d 'The seed (any 64-bit number)' -r
complete -c dvemc -n "__fish_dvemc_using_subcommand gen" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "explore" -d 'Explore a model\'s state space with a search strategy and report what it found'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "check" -d 'Parse and check a model; print its size in one line'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "ltl2ba" -d 'Print the Büchi automaton of an LTL formula (HOA format, or text)'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "simulate" -d 'Follow one path: random (--random), chosen (--guided) or a file\'s (--replay)'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "strategies" -d 'List the search strategies: what each does, its paper, the options it takes'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "bench" -d 'Benchmark matrices: run, list, report, merge, slurm, compare'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "verify-beem" -d 'Explore BEEM\'s instances up to a size and compare the state counts with BEEM\'s'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "verify-properties" -d 'Check every BEEM property with a recorded answer and compare with BEEM\'s answer'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "verify-jit" -d 'Compare the JIT with the interpreter on every BEEM file, state by state'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "gen" -d 'Print the generated model of a seed (the differential tests\' models)'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "completions" -d 'Print the shell completion script of SHELL'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and not __fish_seen_subcommand_from explore check ltl2ba simulate strategies bench verify-beem verify-properties verify-jit gen completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "run" -d 'Run a matrix, or a shard or slice of it, into a results CSV'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "list" -d 'Print the cells of a matrix: key, then the command line'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "report" -d 'Write markdown tables and SVG plots of results files (--html: one page)'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "merge" -d 'Merge results files (e.g. shards): one row per cell key, sorted'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "slurm" -d 'Write a Slurm array-job script: one shard per task, then a merge'
complete -c dvemc -n "__fish_dvemc_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "compare" -d 'Compare a results file with a baseline: the same counters, no slower speed ratios'
