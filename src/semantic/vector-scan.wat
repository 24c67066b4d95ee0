;; The vector index's numeric work, over sign codes held in this module's memory (code-arena.ts lays the memory out
;; and is the only caller). `npm run build:wasm` assembles this file with wabt into vector-scan.wasm.ts; a test
;; fails while the two differ.
;;
;; Why WebAssembly: V8 compiles a module with its baseline compiler before the first call, so a process's first search
;; runs within about twice the time of its hundredth (the optimizing tier takes over once a function has run a while),
;; where the same loops in JavaScript ran five to seventy times slower until the JIT had warmed to them (measured at
;; 100,000 vectors of 1,024 dimensions).
;;
;; A search has three stages, each an export:
;;   shortlist   the codes nearest the query by Hamming distance (how many sign bits differ)
;;   signTable   the query's table for the asymmetric score, then
;;   rank        the best shortlisted codes by that score: Σ q_i · (bit i ? +1 : -1), the query's dot product with
;;               the code's sign vector, which follows the true cosine far more closely than a count of differing
;;               bits does, since a component where the query is large weighs more than one near zero
;; and the exact rescoring of the survivors from their stored magnitudes is `dot`.
;;
;; Codes are the stored sign bits as bytes, each zero-padded to whole 32-bit words, one after another by slot; bit i of
;; a code is bit (i mod 8) of byte i / 8. Distances count 64 bits at a time (and 32 for an odd last word): both sides
;; are the same bytes, so byte order never matters, and a fact id is only tested against zero. Floating-point sums run
;; on float64 in the order each export documents, which is the order the JavaScript these functions replaced used, so
;; a score is the same number it was.
(module
  (memory (export "memory") 1)

  ;; shortlist: the slots of the `keep` codes nearest the query, ascending.
  ;;   codes      `size` codes of `words` 32-bit words, slot s at codes + 4·words·s
  ;;   ids        `size` int32 fact ids; a slot whose id is 0 holds no vector and takes no part
  ;;   query      the query's code, `words` words
  ;;   histogram  scratch: 32·words + 2 uint32 counts
  ;;   distances  scratch: `size` uint16 distances
  ;;   out        `keep` int32 slots are written here
  ;; Every slot nearer than the cut distance is kept, and slots at the cut in slot order until `keep` are taken (a
  ;; counting select: no sort). Returns how many slots were written: `keep`, or every live slot when there are fewer.
  (func (export "shortlist")
    (param $codes i32) (param $ids i32) (param $size i32) (param $words i32) (param $query i32)
    (param $histogram i32) (param $distances i32) (param $out i32) (param $keep i32)
    (result i32)
    (local $live i32) (local $take i32) (local $cut i32) (local $below i32) (local $count i32)
    (local.set $live
      (call $measure (local.get $codes) (local.get $ids) (local.get $size) (local.get $words) (local.get $query)
        (local.get $histogram) (local.get $distances)))
    (local.set $take (select (local.get $keep) (local.get $live) (i32.lt_u (local.get $keep) (local.get $live))))
    ;; The cut: the smallest distance at which the codes at or nearer than it reach `take`.
    (block $found
      (loop $next
        (local.set $count (i32.load (i32.add (local.get $histogram) (i32.shl (local.get $cut) (i32.const 2)))))
        (br_if $found (i32.ge_u (i32.add (local.get $below) (local.get $count)) (local.get $take)))
        (local.set $below (i32.add (local.get $below) (local.get $count)))
        (local.set $cut (i32.add (local.get $cut) (i32.const 1)))
        (br $next)))
    (call $select (local.get $distances) (local.get $size) (local.get $cut) (i32.sub (local.get $take) (local.get $below))
      (local.get $out) (local.get $take)))

  ;; Each slot's distance into `distances` (32·words + 1 for a slot without a vector, beyond any real distance) and a
  ;; count of the live slots at each distance into `histogram`. Returns how many slots hold a vector. A code is read
  ;; 256 bits at a time while they last, then 64, then the odd last word: written out by hand, since a process's
  ;; first search runs this on V8's baseline compiler, which keeps a loop as it is written.
  (func $measure
    (param $codes i32) (param $ids i32) (param $size i32) (param $words i32) (param $query i32)
    (param $histogram i32) (param $distances i32)
    (result i32)
    (local $slot i32) (local $code i32) (local $stride i32) (local $absent i32) (local $quads i32) (local $pairs i32)
    (local $at i32) (local $q i32) (local $end i32) (local $sum i64) (local $distance i32) (local $bin i32) (local $live i32)
    (local.set $stride (i32.shl (local.get $words) (i32.const 2)))
    (local.set $absent (i32.add (i32.shl (local.get $words) (i32.const 5)) (i32.const 1)))
    ;; Bytes read 32 at a time, and 8 at a time, from the start of a code.
    (local.set $quads (i32.shl (i32.shr_u (local.get $words) (i32.const 3)) (i32.const 5)))
    (local.set $pairs (i32.shl (i32.shr_u (local.get $words) (i32.const 1)) (i32.const 3)))
    (memory.fill (local.get $histogram) (i32.const 0) (i32.shl (i32.add (local.get $absent) (i32.const 1)) (i32.const 2)))
    (local.set $code (local.get $codes))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $slot) (local.get $size)))
        (if (i32.load (i32.add (local.get $ids) (i32.shl (local.get $slot) (i32.const 2))))
          (then
            (local.set $sum (i64.const 0))
            (local.set $at (local.get $code))
            (local.set $q (local.get $query))
            (local.set $end (i32.add (local.get $code) (local.get $quads)))
            (block $quadded
              (loop $quad
                (br_if $quadded (i32.ge_u (local.get $at) (local.get $end)))
                (local.set $sum (i64.add (local.get $sum) (i64.add
                  (i64.add
                    (i64.popcnt (i64.xor (i64.load (local.get $at)) (i64.load (local.get $q))))
                    (i64.popcnt (i64.xor (i64.load offset=8 (local.get $at)) (i64.load offset=8 (local.get $q)))))
                  (i64.add
                    (i64.popcnt (i64.xor (i64.load offset=16 (local.get $at)) (i64.load offset=16 (local.get $q))))
                    (i64.popcnt (i64.xor (i64.load offset=24 (local.get $at)) (i64.load offset=24 (local.get $q))))))))
                (local.set $at (i32.add (local.get $at) (i32.const 32)))
                (local.set $q (i32.add (local.get $q) (i32.const 32)))
                (br $quad)))
            (local.set $end (i32.add (local.get $code) (local.get $pairs)))
            (block $paired
              (loop $pair
                (br_if $paired (i32.ge_u (local.get $at) (local.get $end)))
                (local.set $sum (i64.add (local.get $sum)
                  (i64.popcnt (i64.xor (i64.load (local.get $at)) (i64.load (local.get $q))))))
                (local.set $at (i32.add (local.get $at) (i32.const 8)))
                (local.set $q (i32.add (local.get $q) (i32.const 8)))
                (br $pair)))
            (local.set $distance (i32.wrap_i64 (local.get $sum)))
            (if (i32.and (local.get $words) (i32.const 1))
              (then
                (local.set $distance (i32.add (local.get $distance)
                  (i32.popcnt (i32.xor (i32.load (local.get $at)) (i32.load (local.get $q))))))))
            (i32.store16 (i32.add (local.get $distances) (i32.shl (local.get $slot) (i32.const 1))) (local.get $distance))
            (local.set $bin (i32.add (local.get $histogram) (i32.shl (local.get $distance) (i32.const 2))))
            (i32.store (local.get $bin) (i32.add (i32.load (local.get $bin)) (i32.const 1)))
            (local.set $live (i32.add (local.get $live) (i32.const 1))))
          (else
            (i32.store16 (i32.add (local.get $distances) (i32.shl (local.get $slot) (i32.const 1))) (local.get $absent))))
        (local.set $code (i32.add (local.get $code) (local.get $stride)))
        (local.set $slot (i32.add (local.get $slot) (i32.const 1)))
        (br $next)))
    (local.get $live))

  ;; In slot order, every slot nearer than `cut` and the first `atCut` slots at `cut`, until `take` are written to
  ;; `out`. Returns how many were written.
  (func $select
    (param $distances i32) (param $size i32) (param $cut i32) (param $atCut i32) (param $out i32) (param $take i32)
    (result i32)
    (local $slot i32) (local $taken i32) (local $distance i32)
    (block $done
      (loop $next
        (br_if $done (i32.or (i32.ge_u (local.get $slot) (local.get $size)) (i32.ge_u (local.get $taken) (local.get $take))))
        (local.set $distance (i32.load16_u (i32.add (local.get $distances) (i32.shl (local.get $slot) (i32.const 1)))))
        (if (i32.or
              (i32.lt_u (local.get $distance) (local.get $cut))
              (i32.and (i32.eq (local.get $distance) (local.get $cut)) (i32.gt_s (local.get $atCut) (i32.const 0))))
          (then
            (if (i32.eq (local.get $distance) (local.get $cut))
              (then (local.set $atCut (i32.sub (local.get $atCut) (i32.const 1)))))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $taken) (i32.const 2))) (local.get $slot))
            (local.set $taken (i32.add (local.get $taken) (i32.const 1)))))
        (local.set $slot (i32.add (local.get $slot) (i32.const 1)))
        (br $next)))
    (local.get $taken))

  ;; live: how many of `size` int32 fact ids at `ids` are not 0.
  (func (export "live") (param $ids i32) (param $size i32) (result i32)
    (local $slot i32) (local $live i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $slot) (local.get $size)))
        (if (i32.load (i32.add (local.get $ids) (i32.shl (local.get $slot) (i32.const 2))))
          (then (local.set $live (i32.add (local.get $live) (i32.const 1)))))
        (local.set $slot (i32.add (local.get $slot) (i32.const 1)))
        (br $next)))
    (local.get $live))

  ;; signTable: the query's table for the asymmetric score. For each byte position p of a code (`positions` of them),
  ;; 256 float32 entries at table + 1024·p, entry v holding Σ_k q_{8p+k} · (bit k of v ? +1 : -1) over the byte's
  ;; eight components, components past `dim` counting 0. Each entry is summed on float64 in the scratch `entry` (256
  ;; float64) and then rounded to float32: entry 0 is 0 - q_{8p} - … - q_{8p+7}, and entry v is entry v-without-its-
  ;; lowest-bit plus 2·q of that bit's component.
  (func (export "signTable") (param $query i32) (param $dim i32) (param $positions i32) (param $table i32) (param $entry i32)
    (local $p i32) (local $k i32) (local $v i32) (local $low i32) (local $negated f64) (local $row i32)
    (block $tabled
      (loop $position
        (br_if $tabled (i32.ge_u (local.get $p) (local.get $positions)))
        (local.set $negated (f64.const 0))
        (local.set $k (i32.const 0))
        (block $summed
          (loop $component
            (br_if $summed (i32.ge_u (local.get $k) (i32.const 8)))
            (local.set $negated (f64.sub (local.get $negated)
              (call $component (local.get $query) (local.get $dim) (i32.add (i32.shl (local.get $p) (i32.const 3)) (local.get $k)))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $component)))
        (f64.store (local.get $entry) (local.get $negated))
        (local.set $v (i32.const 1))
        (block $filled
          (loop $value
            (br_if $filled (i32.ge_u (local.get $v) (i32.const 256)))
            (local.set $low (i32.and (local.get $v) (i32.sub (i32.const 0) (local.get $v))))
            (f64.store (i32.add (local.get $entry) (i32.shl (local.get $v) (i32.const 3)))
              (f64.add
                (f64.load (i32.add (local.get $entry) (i32.shl (i32.xor (local.get $v) (local.get $low)) (i32.const 3))))
                (f64.mul (f64.const 2)
                  (call $component (local.get $query) (local.get $dim)
                    (i32.add (i32.shl (local.get $p) (i32.const 3)) (i32.ctz (local.get $v)))))))
            (local.set $v (i32.add (local.get $v) (i32.const 1)))
            (br $value)))
        (local.set $row (i32.add (local.get $table) (i32.shl (local.get $p) (i32.const 10))))
        (local.set $v (i32.const 0))
        (block $stored
          (loop $rounded
            (br_if $stored (i32.ge_u (local.get $v) (i32.const 256)))
            (f32.store (i32.add (local.get $row) (i32.shl (local.get $v) (i32.const 2)))
              (f32.demote_f64 (f64.load (i32.add (local.get $entry) (i32.shl (local.get $v) (i32.const 3))))))
            (local.set $v (i32.add (local.get $v) (i32.const 1)))
            (br $rounded)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $position))))

  ;; Component i of the float32 query at `query`, on float64; 0 past `dim`.
  (func $component (param $query i32) (param $dim i32) (param $i i32) (result f64)
    (if (result f64) (i32.lt_u (local.get $i) (local.get $dim))
      (then (f64.promote_f32 (f32.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 2))))))
      (else (f64.const 0))))

  ;; rank: the `keep` best of `count` slots (int32 at `slots`) by asymmetric score, best first, ties the lower slot
  ;; first. A slot's score is summed on float64 from 0, four bytes of its code at a time: the entries of bytes p … p+3
  ;; (table entry (p, byte p), those past `positions` left out) are added together first, in byte order, and their sum
  ;; to the score. Its code is at codes + stride·slot. Writes the kept slots to `out` (int32) and their scores to
  ;; `scores` (float64); returns how many were kept: `keep`, or `count` when it is smaller.
  (func (export "rank")
    (param $table i32) (param $codes i32) (param $stride i32) (param $positions i32) (param $slots i32) (param $count i32)
    (param $keep i32) (param $out i32) (param $scores i32)
    (result i32)
    (local $i i32) (local $slot i32) (local $code i32) (local $p i32) (local $score f64) (local $kept i32) (local $j i32)
    (local $group f64) (local $end i32)
    (if (i32.le_s (local.get $keep) (i32.const 0)) (then (return (i32.const 0))))
    (block $ranked
      (loop $candidate
        (br_if $ranked (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $slot (i32.load (i32.add (local.get $slots) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $code (i32.add (local.get $codes) (i32.mul (local.get $stride) (local.get $slot))))
        (local.set $score (f64.const 0))
        (local.set $p (i32.const 0))
        (block $scored
          (loop $word
            (br_if $scored (i32.ge_u (local.get $p) (local.get $positions)))
            (local.set $end (i32.add (local.get $p) (i32.const 4)))
            (local.set $end (select (local.get $positions) (local.get $end) (i32.gt_u (local.get $end) (local.get $positions))))
            (local.set $group (call $entry (local.get $table) (local.get $code) (local.get $p)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (block $grouped
              (loop $byte
                (br_if $grouped (i32.ge_u (local.get $p) (local.get $end)))
                (local.set $group (f64.add (local.get $group) (call $entry (local.get $table) (local.get $code) (local.get $p))))
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (br $byte)))
            (local.set $score (f64.add (local.get $score) (local.get $group)))
            (br $word)))
        ;; Insert into the kept list, sorted best first: from its end, move each kept entry the candidate beats one
        ;; place down (the last falls off when the list is full), then place the candidate.
        (local.set $j (select (i32.sub (local.get $keep) (i32.const 1)) (local.get $kept) (i32.ge_u (local.get $kept) (local.get $keep))))
        (if (i32.and (i32.gt_s (local.get $keep) (i32.const 0))
              (i32.or (i32.lt_u (local.get $kept) (local.get $keep))
                (call $beats (local.get $score) (local.get $slot) (local.get $out) (local.get $scores) (local.get $j))))
          (then
            (block $placed
              (loop $shift
                (br_if $placed (i32.eqz (local.get $j)))
                (br_if $placed (i32.eqz
                  (call $beats (local.get $score) (local.get $slot) (local.get $out) (local.get $scores) (i32.sub (local.get $j) (i32.const 1)))))
                (i32.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 2)))
                  (i32.load (i32.add (local.get $out) (i32.shl (i32.sub (local.get $j) (i32.const 1)) (i32.const 2)))))
                (f64.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 3)))
                  (f64.load (i32.add (local.get $scores) (i32.shl (i32.sub (local.get $j) (i32.const 1)) (i32.const 3)))))
                (local.set $j (i32.sub (local.get $j) (i32.const 1)))
                (br $shift)))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 2))) (local.get $slot))
            (f64.store (i32.add (local.get $scores) (i32.shl (local.get $j) (i32.const 3))) (local.get $score))
            (if (i32.lt_u (local.get $kept) (local.get $keep))
              (then (local.set $kept (i32.add (local.get $kept) (i32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $candidate)))
    (local.get $kept))

  ;; Table entry (p, byte p of the code at `code`), on float64.
  (func $entry (param $table i32) (param $code i32) (param $p i32) (result f64)
    (f64.promote_f32 (f32.load (i32.add (local.get $table)
      (i32.shl (i32.or (i32.shl (local.get $p) (i32.const 8)) (i32.load8_u (i32.add (local.get $code) (local.get $p))))
        (i32.const 2))))))

  ;; Whether a candidate (score, slot) ranks before kept entry `at`: a higher score, or the same score and a lower slot.
  (func $beats (param $score f64) (param $slot i32) (param $out i32) (param $scores i32) (param $at i32) (result i32)
    (local $other f64)
    (local.set $other (f64.load (i32.add (local.get $scores) (i32.shl (local.get $at) (i32.const 3)))))
    (i32.or (f64.gt (local.get $score) (local.get $other))
      (i32.and (f64.eq (local.get $score) (local.get $other))
        (i32.lt_s (local.get $slot) (i32.load (i32.add (local.get $out) (i32.shl (local.get $at) (i32.const 2))))))))

  ;; dot: Σ q_i · c_i over the `dim` components of the float32 query at `query` and a stored int8 vector c, read from its
  ;; packed magnitudes (seven bits each, eight to seven bytes, as vector-codec.ts packs them) and its sign bits at
  ;; `bits` (a set bit: positive). The products are added on float64 from 0 in component order.
  (func (export "dot") (param $query i32) (param $magnitudes i32) (param $bits i32) (param $dim i32) (result f64)
    (local $i i32) (local $at i32) (local $low i32) (local $high i32) (local $signs i32) (local $k i32) (local $end i32)
    (local $magnitude i32) (local $dot f64)
    (local.set $at (local.get $magnitudes))
    (block $done
      (loop $group
        (br_if $done (i32.ge_u (local.get $i) (local.get $dim)))
        (local.set $low (i32.or (i32.load16_u (local.get $at))
          (i32.or (i32.shl (i32.load8_u offset=2 (local.get $at)) (i32.const 16))
            (i32.shl (i32.and (i32.load8_u offset=3 (local.get $at)) (i32.const 0x0f)) (i32.const 24)))))
        (local.set $high (i32.or (i32.shr_u (i32.load8_u offset=3 (local.get $at)) (i32.const 4))
          (i32.or (i32.shl (i32.load8_u offset=4 (local.get $at)) (i32.const 4))
            (i32.or (i32.shl (i32.load8_u offset=5 (local.get $at)) (i32.const 12))
              (i32.shl (i32.load8_u offset=6 (local.get $at)) (i32.const 20))))))
        (local.set $signs (i32.load8_u (i32.add (local.get $bits) (i32.shr_u (local.get $i) (i32.const 3)))))
        (local.set $end (i32.sub (local.get $dim) (local.get $i)))
        (local.set $end (select (i32.const 8) (local.get $end) (i32.gt_u (local.get $end) (i32.const 8))))
        (local.set $k (i32.const 0))
        (block $grouped
          (loop $component
            (br_if $grouped (i32.ge_u (local.get $k) (local.get $end)))
            (local.set $magnitude (i32.and (i32.const 0x7f)
              (select
                (i32.shr_u (local.get $low) (i32.mul (i32.const 7) (local.get $k)))
                (i32.shr_u (local.get $high) (i32.mul (i32.const 7) (i32.sub (local.get $k) (i32.const 4))))
                (i32.lt_u (local.get $k) (i32.const 4)))))
            (if (i32.eqz (i32.and (i32.shr_u (local.get $signs) (local.get $k)) (i32.const 1)))
              (then (local.set $magnitude (i32.sub (i32.const 0) (local.get $magnitude)))))
            (local.set $dot (f64.add (local.get $dot)
              (f64.mul
                (f64.promote_f32 (f32.load (i32.add (local.get $query) (i32.shl (i32.add (local.get $i) (local.get $k)) (i32.const 2)))))
                (f64.convert_i32_s (local.get $magnitude)))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $component)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (local.set $at (i32.add (local.get $at) (i32.const 7)))
        (br $group)))
    (local.get $dot))
)
