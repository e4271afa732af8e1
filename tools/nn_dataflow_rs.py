#!/usr/bin/env python3
"""nn_dataflow's optimal AlexNet CONV1-5 schedules, as published or with whole-row register files.

Runs Stanford's nn_dataflow (github.com/stanford-mast/nn_dataflow, checked at commit
198a5274b9529125c6aa2b8b72b365d60cf83778; not part of this project, pass a checkout) on AlexNet
CONV1-5 and writes one CSV row per layer and batch in the format of
tests/data/nn_dataflow_alexnet.csv.

Setup (that of the reference CSV): MapStrategyEyeriss (row stationary) on a 12x14 PE array with a
55,296-word global buffer and 256 register-file words per PE, one node, DRAM as source and
destination; costs per word DRAM 200, buffer 6, array 2, RF 1, and 1 per MAC; no buffer bypass,
exhaustive loop-blocking search, energy goal, the best schedule kept. nn_dataflow's AlexNet
(nns/alex_net.py) splits every conv layer into two identical halves, conv*_a and conv*_b; one
half is searched and all counts are doubled.

Register-file rule (--rule):
  published  nn_dataflow unchanged. Its row-stationary PE holds a sliding window per unit pass:
             S filter weights, S input activations and one partial sum.
  rows       A row-stationary PE computes a whole 1-D row convolution per unit pass, so data it
             keeps in its register file across iterations of loops above the PE are whole rows,
             not a sliding window: the filter row (S), the input row it streams
             (min(W_in, W_out*S), W_in = (W_out-1)*stride + S) and the partial-sum row (W_out).
             A data category is kept so when the chosen blocking fetches it into the register file
             fewer times than the product of the blocking factors, at DRAM>GBUF and GBUF>REGF, of
             the loops it does not depend on (for ofmaps the fetch count f is first mapped back
             by (f+1)//2, since nn_dataflow counts psum fetches as 2f-1). Only those categories
             take the row size; the others keep the sliding size. The sizes are set right after
             LoopBlockingScheme._set_fetch() (wrapped here at run time, the checkout is not
             edited), so nn_dataflow's own capacity recheck rejects blockings that do not fit.

Needs python3 with sympy (Debian: python3-sympy); nn_dataflow's `fastcache` dependency is
replaced by functools.lru_cache if it is not installed. Each layer half is searched in a fresh
process: nn_dataflow memoizes schedules in module-level caches, and the row sizes are per layer.

  tools/nn_dataflow_rs.py --nn-dataflow CHECKOUT --rule published -o published.csv
  tools/nn_dataflow_rs.py --nn-dataflow CHECKOUT --rule rows -o rows.csv
      [--batch 4 16] [--processes 2]   (75-95 s per rule on 2 cores)
They reproduce tests/data/nn_dataflow_alexnet.csv and nn_dataflow_alexnet_rf_rows.csv byte for byte.
"""
import argparse
import functools
import importlib.util
import json
import multiprocessing
import os
import subprocess
import sys
import time
import types

# One half of each layer: (ifmaps, ofmaps, ofmap width, filter width, stride), nns/alex_net.py.
LAYERS = {'conv1': (3, 48, 55, 11, 4), 'conv2': (48, 128, 27, 5, 1),
          'conv3': (256, 192, 13, 3, 1), 'conv4': (192, 192, 13, 3, 1),
          'conv5': (192, 128, 13, 3, 1)}
HALVES = 2
COMMIT = '198a5274b9529125c6aa2b8b72b365d60cf83778'
ARRAY, GBUF_WORDS, RF_WORDS = (12, 14), 55296, 256
COST = {'mac': 1, 'dram': 200, 'gbuf': 6, 'array': 2, 'rf': 1}
LEVELS = ('dram', 'gbuf', 'array')  # nn_dataflow's MemHierEnum order; REGF is last
CATEGORIES = ('weight', 'ifmap', 'ofmap')  # DataCategoryEnum order
COLUMNS = (['network', 'layer', 'batch', 'pe_array', 'gbuf_words', 'rf_words_per_pe', 'macs']
           + ['%s_%s_words' % (lv, dc) for lv in LEVELS for dc in CATEGORIES + ('total',)]
           + ['rf_total_words'] + ['e_' + k for k in ('mac', 'dram', 'gbuf', 'array', 'rf')]
           + ['e_total', 'blocking'])


def checkout_root(path):
    """The directory holding the nn_dataflow package, given it or the package itself."""
    path = os.path.abspath(path)
    root = os.path.dirname(path) if os.path.isdir(os.path.join(path, 'core')) else path
    if not os.path.isdir(os.path.join(root, 'nn_dataflow', 'core')):
        print('nn_dataflow_rs.py: no nn_dataflow package at %s' % path, file=sys.stderr)
        sys.exit(2)
    return root


def import_nn_dataflow(path):
    sys.path.insert(0, checkout_root(path))
    sys.dont_write_bytecode = True  # leave the checkout as it was
    if importlib.util.find_spec('fastcache') is None:
        # nn_dataflow only uses fastcache.clru_cache, which lru_cache matches.
        shim = types.ModuleType('fastcache')
        shim.clru_cache = lambda maxsize=128, typed=False, **_: functools.lru_cache(maxsize, typed)
        sys.modules['fastcache'] = shim
    import nn_dataflow.core as ndc
    return ndc


def apply_rows_rule(ndc, rows):
    """Wrap LoopBlockingScheme._set_fetch so that the REGF unit sizes follow the rows rule."""
    lbs = ndc.LoopBlockingScheme
    regf = lbs.BL.REGF
    ofm = ndc.DataCategoryEnum.OFM
    set_fetch = lbs._set_fetch

    def set_fetch_rows(self):
        set_fetch(self)
        above_pe = self._bl_tp(slice(0, regf + 1))  # DRAM>GBUF and GBUF>REGF factors
        sizes = list(self.unit_size[regf])
        for dce, row in enumerate(rows):
            fetched = self.fetch[regf][dce]
            if dce == ofm:
                fetched = (fetched + 1) // 2
            unrelated = self.nld.data_loops[dce].drop(range(ndc.LoopEnum.NUM))
            if fetched < functools.reduce(lambda a, b: a * b,
                                          (above_pe[lp] for lp in unrelated), 1):
                sizes[dce] = row
        self.unit_size[regf] = tuple(sizes)

    lbs._set_fetch = set_fetch_rows


def search(args, name, batch):
    """Search one layer half in this process; return the chosen scheme's counts."""
    ndc = import_nn_dataflow(args.nn_dataflow)
    # Workers must inherit the wrapped method; spawn/forkserver would re-import nn_dataflow.
    multiprocessing.set_start_method('fork', force=True)
    nifm, nofm, wofm, wfil, stride = LAYERS[name]
    layer = ndc.ConvLayer(nifm, nofm, wofm, wfil, stride)
    if args.rule == 'rows':
        wifm = layer.input_layer().wofm
        apply_rows_rule(ndc, (wfil, min(wifm, wofm * wfil), wofm))
    net = ndc.Network(name)
    net.set_input_layer(ndc.InputLayer(nifm, layer.input_layer().hofm))
    net.add(name, layer)
    dim = ndc.PhyDim2
    dram = ndc.NodeRegion(dim=dim(2, 2), origin=dim(0, 0), dist=dim(0, 0),
                          type=ndc.NodeRegion.DRAM)
    res = ndc.Resource(
        proc_region=ndc.NodeRegion(dim=dim(1, 1), origin=dim(0, 0), type=ndc.NodeRegion.PROC),
        dram_region=dram, src_data_region=dram, dst_data_region=dram,
        dim_array=dim(*ARRAY), size_gbuf=GBUF_WORDS, size_regf=RF_WORDS,
        array_bus_width=float('inf'), dram_bandwidth=float('inf'), no_time_mux=False)
    cost = ndc.Cost(mac_op=COST['mac'], noc_hop=0, idl_unit=0,
                    mem_hier=tuple(COST[k] for k in ('dram', 'gbuf', 'array', 'rf')))
    opt = ndc.Option(sw_gbuf_bypass=(False,) * 3, sw_solve_loopblocking=False, opt_goal='e',
                     ntops=1, nprocesses=args.processes)
    tops, _ = ndc.NNDataflow(net, batch, res, cost, ndc.MapStrategyEyeriss).schedule_search(opt)
    if not tops:
        return None
    sch = tops[0][name].scheme
    return {k: sch[k] for k in ('access', 'ops', 'cost', 'tvals', 'orders')}


def blocking(name, tvals, orders):
    def outer_to_inner(order):  # order[loop] is the loop's position, 0 = innermost
        return ''.join(sorted('iob', key=lambda lp: -order['iob'.index(lp)]))
    half = ('DRAM>GBUF[i%d o%d b%d ord(out->in)=%s] GBUF>REGF[i%d o%d b%d ord(out->in)=%s] '
            'inPE/array[i%d o%d b%d]' % (*tvals[0], outer_to_inner(orders[0]),
                                         *tvals[1], outer_to_inner(orders[1]), *tvals[2]))
    return ' || '.join('%s_%s: %s' % (name, h, half) for h in 'ab')


def csv_row(name, batch, sch):
    row = {'network': 'AlexNet', 'layer': name.upper(), 'batch': batch,
           'pe_array': '%dx%d' % ARRAY, 'gbuf_words': GBUF_WORDS, 'rf_words_per_pe': RF_WORDS}
    if sch is None:
        row['blocking'] = 'no valid schedule'
        return row
    access = [[int(round(x)) * HALVES for x in lv] for lv in sch['access']]
    row['macs'] = int(round(sch['ops'])) * HALVES
    for lv, counts in zip(LEVELS, access):
        row.update(('%s_%s_words' % (lv, dc), n) for dc, n in zip(CATEGORIES, counts))
        row['%s_total_words' % lv] = sum(counts)
        row['e_' + lv] = sum(counts) * COST[lv]
    row['rf_total_words'] = sum(access[-1])
    row['e_mac'] = row['macs'] * COST['mac']
    row['e_rf'] = row['rf_total_words'] * COST['rf']
    row['e_total'] = sum(row['e_' + k] for k in ('mac', 'dram', 'gbuf', 'array', 'rf'))
    # Our pricing of the counts must agree with the cost nn_dataflow minimized.
    assert abs(row['e_total'] - HALVES * sch['cost']) <= 1e-6 * row['e_total'], (name, batch)
    row['blocking'] = blocking(name, sch['tvals'], sch['orders'])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--nn-dataflow', required=True, help='checkout root or its package dir')
    ap.add_argument('--rule', choices=('published', 'rows'), default='published')
    ap.add_argument('--batch', type=int, nargs='+', default=[4, 16])
    ap.add_argument('--processes', type=int, default=2, help='search processes per layer')
    ap.add_argument('-o', '--output', help='CSV to write (required unless --one)')
    ap.add_argument('--one', metavar='LAYER:BATCH', help=argparse.SUPPRESS)  # child mode
    args = ap.parse_args()

    if args.one:
        name, batch = args.one.split(':')
        print(json.dumps(search(args, name, int(batch))))
        return
    if not args.output:
        ap.error('-o/--output is required')
    if os.path.exists(args.output):
        print('nn_dataflow_rs.py: %s exists; not overwriting it' % args.output, file=sys.stderr)
        sys.exit(2)
    root = checkout_root(args.nn_dataflow)
    # The rows rule reaches into LoopBlockingScheme's internals, which are those of this commit.
    head = subprocess.run(['git', '-C', root, 'rev-parse', 'HEAD'], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
    if head and head != COMMIT:
        print('nn_dataflow_rs.py: warning: checkout at %s, checked at %s' % (head, COMMIT),
              file=sys.stderr)
    rows, start = [], time.time()
    for batch in args.batch:
        for name in LAYERS:
            t0 = time.time()
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), '--nn-dataflow', args.nn_dataflow,
                 '--rule', args.rule, '--processes', str(args.processes),
                 '--one', '%s:%d' % (name, batch)],
                stdout=subprocess.PIPE, check=True, universal_newlines=True).stdout
            rows.append(csv_row(name, batch, json.loads(out.splitlines()[-1])))
            print('%s b%d: %.1f s' % (name, batch, time.time() - t0), file=sys.stderr)
    # The reference CSV has CRLF line ends and empty fields for a layer without a schedule.
    with open(args.output, 'w', newline='\r\n') as f:
        f.write(','.join(COLUMNS) + '\n')
        for row in rows:
            f.write(','.join(str(row.get(c, '')) for c in COLUMNS) + '\n')
    print('%s: %s rule, %.0f s' % (args.output, args.rule, time.time() - start), file=sys.stderr)


if __name__ == '__main__':
    main()
