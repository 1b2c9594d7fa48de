//! The builder: which tables a run needs, in which order, which files it keeps, and which
//! core builds each.
//!
//! Owns: [`Builder`] — planning, keeping or rebuilding files, packing them after a run.
//! Must never: compute a value itself (the cores in [`crate::fast`] and [`crate::reference`] do).

use crate::ranks::{agree, OneRank, Ranks};
use crate::{exit_targets, fast, BuildReport, CoreKind, DiskNeed, GenError, Metric, Observer};
use retro_engine::{Geometry, Indexer, Material};
use retro_format::{FormatError, Header, Table, TableKind};
use retro_rules::{Board, Piece, Side};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

/// A file a run keeps: its header, and its body hash where the run checked it whole.
type Kept = (Header, Option<[u8; 32]>);

/// Builds tables for one board into one directory.
pub struct Builder {
    pub(crate) geo: Geometry,
    dir: PathBuf,
    pub(crate) core: CoreKind,
    /// How the fast core spends its work byte; tests take many watch codes to leave few
    /// depths (so it builds again without), or rebase every few depths.
    pub(crate) tuning: fast::Tuning,
    /// Whether (and how) every table of a run ends up packed, its raw file removed.
    pack: Option<retro_format::PackOptions>,
    /// The most memory a build may take, in bytes ([`Builder::with_memory_limit`]).
    pub(crate) memory_limit: Option<u64>,
    /// What a run builds for each material ([`Builder::with_metrics`]).
    metrics: Vec<Metric>,
    /// The plies the fifty-move rule allows between zeroing moves, for [`Metric::Fifty`]
    /// (100; tests take fewer).
    pub(crate) fifty_rule: u32,
}

impl Builder {
    /// A builder for `board`, writing into `dir`.
    pub fn new(board: Board, dir: impl Into<PathBuf>) -> Builder {
        // Smaller tables may be packed files that leave entries out.
        retro_format::install_restorer(crate::restore_packed);
        Builder {
            geo: Geometry::new(board),
            dir: dir.into(),
            core: CoreKind::Fast,
            tuning: fast::Tuning::default(),
            pack: None,
            memory_limit: None,
            metrics: vec![Metric::Dtm],
            fifty_rule: retro_rules::fifty::RULE_PLIES,
        }
    }

    /// The same builder building, for each material of a run, the tables of `metrics` (DTM
    /// alone by default), each metric's from the smaller tables of the same metric.
    pub fn with_metrics(mut self, metrics: &[Metric]) -> Builder {
        let mut metrics = metrics.to_vec();
        metrics.sort();
        metrics.dedup();
        self.metrics = metrics;
        self
    }

    /// The index of `material`, which the plain cores build only in its canonical form.
    pub(crate) fn canonical_indexer(&self, material: Material) -> Result<Indexer, GenError> {
        let unsupported = |reason: String| GenError::Unsupported {
            material: material.to_string(),
            reason,
        };
        if !material.is_canonical() {
            return Err(unsupported("only canonical material is built".into()));
        }
        Indexer::new(&self.geo, material).map_err(|e| unsupported(e.to_string()))
    }

    /// The same builder with a fifty-move rule of `plies` plies between zeroing moves rather
    /// than 100, for tests on small boards, where the real rule never bites (at most 255).
    pub fn with_fifty_rule(mut self, plies: u8) -> Builder {
        self.fifty_rule = u32::from(plies.max(1));
        self
    }

    /// The same builder refusing, before any work, a run with a table whose build would take
    /// more than `bytes` of memory ([`crate::memory_needed`]); `None`: no limit.
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Builder {
        self.memory_limit = bytes;
        self
    }

    /// The same builder leaving every table of a run packed (`MATERIAL.FxR.rtbz`): each table
    /// it builds, and each raw table it keeps, is packed right after and its raw file removed.
    /// The larger tables of the run read the packed ones.
    pub fn with_pack(mut self, options: Option<retro_format::PackOptions>) -> Builder {
        self.pack = options;
        self
    }

    /// The same builder with the retrograde core `core`.
    pub fn with_core(mut self, core: CoreKind) -> Builder {
        self.core = core;
        self
    }

    /// The board.
    pub fn board(&self) -> Board {
        self.geo.board()
    }

    /// The file of `material`'s table (canonical material): the raw file if there is one,
    /// else the packed one if there is one, else the raw file's path.
    pub fn path_of(&self, material: Material) -> PathBuf {
        let board = self.geo.board();
        retro_format::table_path(
            &self.dir,
            &material.to_string(),
            board.files(),
            board.ranks(),
        )
    }

    /// The file of `material`'s table of `kind`, as [`Builder::path_of`] finds the DTM one.
    pub fn kind_path_of(&self, kind: TableKind, material: Material) -> PathBuf {
        let board = self.geo.board();
        retro_format::kind_table_path(
            &self.dir,
            kind,
            &material.to_string(),
            board.files(),
            board.ranks(),
        )
    }

    /// The raw file of `material`'s DTM table, which building writes.
    pub(crate) fn raw_path_of(&self, material: Material) -> PathBuf {
        self.file_of(TableKind::Dtm, material, false)
    }

    /// The raw (or packed) file of `material`'s table of `kind` on this board, in the directory.
    pub(crate) fn file_of(&self, kind: TableKind, material: Material, packed: bool) -> PathBuf {
        let board = self.geo.board();
        self.dir.join(retro_format::kind_file_name(
            kind,
            &material.to_string(),
            board.files(),
            board.ranks(),
            packed,
        ))
    }

    /// After a raw DTM file is written: a packed file of the same table left in the directory
    /// is removed, so that the two never disagree.
    pub(crate) fn remove_stale_packed(&self, material: Material) -> Result<(), GenError> {
        self.remove_stale_packed_of(TableKind::Dtm, material)
    }

    /// [`Builder::remove_stale_packed`] for a table of `kind`.
    pub(crate) fn remove_stale_packed_of(
        &self,
        kind: TableKind,
        material: Material,
    ) -> Result<(), GenError> {
        let packed = self.file_of(kind, material, true);
        match std::fs::remove_file(&packed) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(FormatError::Io {
                path: packed,
                source: e,
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// Packs the raw table of `kind` of `material` (the packer checks its body against its
    /// hash) and removes the raw file once the packed one is written and decoded back.
    fn pack_raw(
        &self,
        kind: TableKind,
        material: Material,
        options: &retro_format::PackOptions,
    ) -> Result<retro_format::PackReport, GenError> {
        let raw = self.file_of(kind, material, false);
        let table = Table::open_body_unchecked(&raw)?;
        let radices = Indexer::new(&self.geo, material)
            .map_err(|e| GenError::Unsupported {
                material: material.to_string(),
                reason: e.to_string(),
            })?
            .digit_radices();
        let packed = self.file_of(kind, material, true);
        let report = crate::pack_table(
            self.geo.board(),
            &self.dir,
            material,
            &table,
            &packed,
            &radices,
            options,
        )?;
        drop(table);
        std::fs::remove_file(&raw).map_err(|source| FormatError::Io { path: raw, source })?;
        Ok(report)
    }

    /// The canonical materials `targets` need — themselves and everything their captures and
    /// promotions reach — each after every material it leads into.
    pub fn plan(&self, targets: &[Material]) -> Result<Vec<Material>, GenError> {
        let mut needed = BTreeSet::new();
        let mut todo: Vec<Material> = targets.iter().map(|m| m.canonical().0).collect();
        while let Some(m) = todo.pop() {
            if m.has_pawns() && self.geo.ranks() < 3 {
                return Err(GenError::Unsupported {
                    material: m.to_string(),
                    reason: format!(
                        "a board of {} ranks has no square a pawn may stand on",
                        self.geo.ranks()
                    ),
                });
            }
            if !needed.insert(m) {
                continue;
            }
            todo.extend(exit_targets(m));
        }
        let mut plan: Vec<Material> = needed.into_iter().collect();
        // A capture leaves fewer men; a promotion as many men and fewer pawns.
        plan.sort_by_key(|m| (m.len(), pawn_count(m), m.to_string()));
        Ok(plan)
    }

    /// Builds every table `targets` need that is not already in the directory (a file that
    /// fails its checks is rebuilt), smallest first.
    pub fn build(
        &self,
        targets: &[Material],
        observer: &dyn Observer,
    ) -> Result<Vec<BuildReport>, GenError> {
        self.build_on(targets, observer, &OneRank)
    }

    /// [`Builder::build`] on a group of `ranks` (every rank calls it, with the same
    /// arguments, on the same directory): with more than one rank, each table to build is
    /// partitioned over them and built by the reference core, each rank holding its part of
    /// the index; rank 0 decides which files to keep, takes the directory's lock, writes every
    /// file and packs. The files are those one process writes. Each material's tables are
    /// built in the order of [`Builder::with_metrics`], after those of the materials it leads
    /// into.
    pub fn build_on(
        &self,
        targets: &[Material],
        observer: &dyn Observer,
        ranks: &dyn Ranks,
    ) -> Result<Vec<BuildReport>, GenError> {
        let plan = self.plan(targets)?;
        let lead = ranks.rank() == 0;
        let partitioned = ranks.count() > 1;
        if partitioned && self.metrics.contains(&Metric::Fifty) {
            return Err(GenError::Unsupported {
                material: targets.first().map_or(String::new(), |m| m.to_string()),
                reason: "the fifty-move tables are built in one process, not over ranks".into(),
            });
        }
        // Which files to keep, from the largest material down: a file is checked whole when
        // this run reads it — a target, or a table a table to be built leads into — and by its
        // header and length otherwise (a packed file whole: every block against its checksum,
        // [`retro_format::check_stored`]); a file that fails is built again, and the tables it
        // leads into are then read. Kept raw files checked whole are not checked again when
        // read; a packed file's rebuilt entries are checked, with its value stream, then.
        // Rank 0 decides for every rank. Each metric reads its own smaller tables.
        let mut kept: BTreeMap<(Material, Metric), Kept> = BTreeMap::new();
        for &metric in self.metrics.iter().filter(|_| lead) {
            let mut read: BTreeSet<Material> = targets.iter().map(|m| m.canonical().0).collect();
            for &material in plan.iter().rev() {
                let whole = read.contains(&material);
                match self.keepable(metric, material, whole) {
                    Some(found) => {
                        kept.insert((material, metric), found);
                    }
                    None => read.extend(exit_targets(material)),
                }
            }
        }
        if partitioned {
            let decided = plan
                .iter()
                .map(|&m| {
                    kept.get(&(m, Metric::Dtm))
                        .map_or(0, |(_, hash)| 1 + u64::from(hash.is_some()))
                })
                .collect();
            let decided = ranks.broadcast(decided);
            let mut headers = Ok(());
            for (&material, &keep) in plan.iter().zip(&decided).filter(|_| !lead) {
                if keep == 0 {
                    continue;
                }
                // Whether rank 0 checked the file whole; its checksum is not needed here (a
                // partitioned build reads its smaller tables as one process does).
                match retro_format::read_header(&self.path_of(material)) {
                    Ok((header, _)) => {
                        kept.insert(
                            (material, Metric::Dtm),
                            (header, (keep == 2).then_some([0; 32])),
                        );
                    }
                    Err(e) => headers = Err(e.into()),
                }
            }
            agree(ranks, headers, targets)?;
        }
        let to_build: Vec<(Material, Metric)> = plan
            .iter()
            .flat_map(|&m| self.metrics.iter().map(move |&metric| (m, metric)))
            .filter(|key| !kept.contains_key(key))
            .collect();
        let fits = match self.memory_limit {
            Some(limit) => to_build.iter().try_for_each(|&(material, metric)| {
                let needed = match (metric, partitioned) {
                    (Metric::Fifty, _) => {
                        crate::memory::fifty_bytes(&self.geo, material, self.core, Some(limit))
                    }
                    (Metric::Dtm, true) => {
                        crate::memory::partitioned_bytes(&self.geo, material, ranks.count())
                    }
                    (Metric::Dtm, false) => {
                        crate::memory_needed(&self.geo, material, self.core).map(|need| need.bytes)
                    }
                };
                let needed = needed.unwrap_or(u64::MAX);
                match needed > limit {
                    true => Err(GenError::NotEnoughMemory {
                        material: material.to_string(),
                        needed,
                        limit,
                    }),
                    false => Ok(()),
                }
            }),
            None => Ok(()),
        };
        // The limit is each rank's, and may differ between machines.
        agree(ranks, fits, targets)?;
        let checked_disk = match lead {
            true => self.check_disk(&to_build, targets, observer),
            false => Ok(()),
        };
        agree(ranks, checked_disk, targets)?;
        // One run writing a directory at a time: another would write the same files. A run
        // that only reads what is there takes no lock.
        let writes = self.pack.is_some() || !to_build.is_empty();
        let names: Vec<String> = targets.iter().map(|m| m.to_string()).collect();
        let lock = match writes && lead {
            true => retro_format::DirectoryLock::acquire(
                &self.dir,
                &format!("retro gen {}", names.join(" ")),
            )
            .map(Some),
            false => Ok(None),
        };
        let _lock = agree(ranks, lock.map_err(GenError::from), targets)?;
        let checked: BTreeMap<Material, [u8; 32]> = kept
            .iter()
            .filter(|((_, metric), _)| *metric == Metric::Dtm)
            .filter_map(|(&(m, _), &(_, hash))| hash.map(|h| (m, h)))
            .collect();
        let mut reports = Vec::new();
        for material in plan {
            for &metric in &self.metrics {
                let keep = kept.remove(&(material, metric));
                if keep.is_none() {
                    // A build's memory is planned without the tables packing keeps open.
                    crate::subtables::forget_shared();
                }
                let mut report = match keep {
                    Some((header, hash)) => BuildReport {
                        material,
                        metric,
                        path: self.kind_path_of(metric.kinds()[0], material),
                        reused: true,
                        body_checked: hash.is_some(),
                        entries_per_side: header.entries_per_side,
                        max_plies: header.max_plies,
                        seconds: 0.0,
                        init_seconds: 0.0,
                        retrograde_seconds: 0.0,
                        depths: 0,
                        core: None,
                        packed: None,
                        traffic: None,
                    },
                    None if metric == Metric::Fifty => self.build_fifty(material, observer)?,
                    None if partitioned => self.build_reference_on(material, observer, ranks)?,
                    None => self.build_checked(material, observer, &checked)?,
                };
                if let Some(options) = &self.pack {
                    for (k, &kind) in metric.kinds().iter().enumerate() {
                        if retro_format::is_packed_path(&self.kind_path_of(kind, material)) {
                            continue;
                        }
                        let packed = match lead {
                            true => self.pack_raw(kind, material, options).map(Some),
                            false => Ok(None),
                        };
                        let packed = agree(ranks, packed, &[material])?;
                        if k == 0 {
                            report.path = self.file_of(kind, material, true);
                            report.packed = packed;
                        }
                    }
                }
                observer.finished(&report);
                reports.push(report);
            }
        }
        Ok(reports)
    }

    /// The header (and, checked whole when `whole`, the body hash) of `material`'s file of
    /// the first kind of `metric`, if every file of the metric is there and fits this
    /// builder: its material, index scheme, kind and rule; `None` if one is missing, damaged
    /// or of another build.
    fn keepable(&self, metric: Metric, material: Material, whole: bool) -> Option<Kept> {
        let mut first = None;
        for &kind in metric.kinds() {
            let path = self.kind_path_of(kind, material);
            let (header, hash) = match whole {
                true => retro_format::check_stored(&path),
                false => retro_format::read_header(&path),
            }
            .ok()?;
            let rule = match kind.under_rule() {
                true => self.fifty_rule,
                false => 0,
            };
            let fits = header.material == material.to_string()
                && header.index_scheme == retro_format::INDEX_SCHEME
                && header.kind == kind
                && u32::from(header.rule_plies) == rule;
            if !fits {
                return None;
            }
            first.get_or_insert((header, whole.then_some(hash)));
        }
        first
    }

    /// Builds the table of `material`, whose smaller tables must exist.
    pub fn build_one(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        self.build_checked(material, observer, &BTreeMap::new())
    }

    /// [`Builder::build_one`], where the files of the materials in `checked` were checked
    /// whole in this run, with the body checksums given.
    fn build_checked(
        &self,
        material: Material,
        observer: &dyn Observer,
        checked: &BTreeMap<Material, [u8; 32]>,
    ) -> Result<BuildReport, GenError> {
        if crate::building_core(&self.geo, material, self.core) == CoreKind::Fast {
            // A table solved in slices that turns out too deep for them is built again whole
            // (its smaller tables read whole, not through windows), then by the reference core.
            let sliced = fast::layout::Layout::sliced(&self.geo, material).is_some();
            for whole in [self.tuning.whole, true] {
                match self.build_fast(material, observer, checked, whole) {
                    Ok(report) => return Ok(report),
                    Err(fast::Declined::Failed(e)) => return Err(e),
                    Err(fast::Declined::TooDeep) if sliced && !whole => {
                        // Whole, the table needs more memory than its slices did.
                        if let Some((needed, limit)) = self.whole_over_limit(material) {
                            return Err(GenError::NotEnoughMemory {
                                material: material.to_string(),
                                needed,
                                limit,
                            });
                        }
                    }
                    Err(fast::Declined::Unsupported | fast::Declined::TooDeep) => break,
                }
            }
        }
        self.build_reference(material, observer)
    }

    /// Refuses a run whose tables to build (`to_build`) and the largest of their scratch
    /// files would not fit the disk of the tables directory
    /// ([`crate::disk_needed`]); a directory whose free space cannot be read is not checked.
    /// Where they fit but would not if the deepest of them had mates longer than a byte holds
    /// ([`crate::DiskNeed::deep`]), `observer` is told so, with the figure, before any work.
    fn check_disk(
        &self,
        to_build: &[(Material, Metric)],
        targets: &[Material],
        observer: &dyn Observer,
    ) -> Result<(), GenError> {
        let Ok(stats) = rustix::fs::statvfs(&self.dir) else {
            return Ok(());
        };
        let available = stats.f_bavail.saturating_mul(stats.f_frsize);
        let needs: Vec<(Material, DiskNeed)> = to_build
            .iter()
            .filter_map(|&(m, metric)| {
                let need = match metric {
                    Metric::Dtm => self.disk_needed(m)?,
                    Metric::Fifty => crate::memory::fifty_disk(&self.geo, m)?,
                };
                Some((m, need))
            })
            .collect();
        let verdict = disk_verdict(&needs, available, targets.first().copied());
        match verdict {
            DiskVerdict::Refused { material, needed } => Err(GenError::NotEnoughDisk {
                material: material.to_string(),
                dir: self.dir.clone(),
                needed,
                available,
            }),
            DiskVerdict::FitsUnlessDeep {
                needed,
                material,
                more,
            } => {
                observer.notice(&format!(
                    "the run needs about {} of disk in {}, and {} are free there; if the \
                     values of {material} are longer than a byte holds (mates over 251 plies, \
                     distances to zeroing over 126), it needs up to {} more (its file at two \
                     bytes an entry, a snapshot of a work table), and the build stops with an \
                     error when the disk is full",
                    crate::memory::gib(needed),
                    self.dir.display(),
                    crate::memory::gib(available),
                    crate::memory::gib(more),
                ));
                Ok(())
            }
            DiskVerdict::Fits => Ok(()),
        }
    }

    /// [`crate::disk_needed`] for `material` as this builder builds it: a table solved in slices
    /// goes deeper than a byte only by being built again whole ([`Builder::build_checked`]),
    /// which the memory limit refuses where that build does not fit it, so then it has no
    /// deeper figure.
    fn disk_needed(&self, material: Material) -> Option<DiskNeed> {
        let mut need = crate::disk_needed(&self.geo, material, self.core)?;
        let sliced = crate::memory::sliced_layout(&self.geo, material, self.core).is_some();
        if sliced && self.whole_over_limit(material).is_some() {
            need.deep = 0;
        }
        Some(need)
    }

    /// The memory `material`'s table built whole by the fast core needs, and the limit, where
    /// that is over the limit ([`crate::memory::whole_bytes`]).
    fn whole_over_limit(&self, material: Material) -> Option<(u64, u64)> {
        let needed = crate::memory::whole_bytes(&self.geo, material)?;
        let limit = self.memory_limit?;
        (needed > limit).then_some((needed, limit))
    }

    /// The header of the table `indexer` numbers, whose longest mate takes `max_plies`.
    pub(crate) fn header(&self, indexer: &Indexer, max_plies: u32) -> Header {
        Header {
            files: self.geo.files(),
            ranks: self.geo.ranks(),
            material: indexer.material().to_string(),
            index_scheme: retro_format::INDEX_SCHEME,
            symmetries: indexer.symmetry_count() as u8,
            entries_per_side: indexer.size(),
            value_width: retro_format::width_for(max_plies),
            max_plies,
            kind: retro_format::TableKind::Dtm,
            rule_plies: 0,
        }
    }

    /// Builds the table of `material` with the fast core.
    fn build_fast(
        &self,
        material: Material,
        observer: &dyn Observer,
        checked: &BTreeMap<Material, [u8; 32]>,
        whole: bool,
    ) -> Result<BuildReport, fast::Declined> {
        let tuning = fast::Tuning {
            whole,
            ..self.tuning
        };
        let start = Instant::now();
        let geo = &self.geo;
        if crate::building_core(geo, material, CoreKind::Fast) != CoreKind::Fast {
            return Err(fast::Declined::Unsupported);
        }
        let indexer = Indexer::new(geo, material).map_err(|_| fast::Declined::Unsupported)?;
        let mut subs = Vec::new();
        // A table solved in slices keeps its work table, and the larger of the tables its
        // exits read, in scratch files beside the tables, holding in memory only what the
        // part being solved reads.
        let paging = (!whole && fast::layout::Layout::sliced(geo, material).is_some())
            .then(|| self.dir.clone());
        let sides = fast::exit_sides(material);
        let fields = fast::exit_fields(geo, material);
        // The pawnless tables a sliced table promotes into are read a part at a time, through
        // windows over the squares each part's pawns promote on.
        let windows = match paging {
            Some(_) => fast::exit_windows(material),
            None => Vec::new(),
        };
        let capacity = fast::window_capacity(geo, material);
        for (k, ((smaller, sides), field)) in fast::exit_targets(material)
            .into_iter()
            .zip(sides)
            .zip(fields)
            .enumerate()
        {
            // A file checked whole earlier in the run is not read through again while the
            // checksum in its header is the one checked.
            let path = self.path_of(smaller);
            let table = match checked.get(&smaller) {
                Some(&hash) => {
                    let table = Table::open_body_unchecked(&path).map_err(GenError::from)?;
                    // A packed file's blocks were checked, not the entries rebuilt beside them.
                    if table.is_packed() || table.body_hash() != hash {
                        table.check_body().map_err(GenError::from)?;
                    }
                    table
                }
                None => Table::open(&path).map_err(GenError::from)?,
            };
            expect_material(&table, smaller)?;
            if table.header().max_plies > fast::convert::SUBTABLE_MAX_PLIES {
                return Err(fast::Declined::TooDeep);
            }
            if let Some(Some(men)) = windows.get(k) {
                subs.push(fast::convert::window_subtable(
                    geo, table, smaller, sides, men, capacity,
                )?);
                continue;
            }
            subs.push(fast::convert::load_subtable(
                geo,
                &table,
                smaller,
                sides,
                field,
                paging.as_deref(),
            )?);
        }
        let built = fast::build(geo, material, &subs, tuning, Some(&self.dir), observer)?;
        let retrograde_seconds = built.retrograde_seconds;
        let init_seconds = start.elapsed().as_secs_f64() - retrograde_seconds;
        drop(subs);
        let max_plies = built.max_plies;
        let header = self.header(&indexer, max_plies);
        let path = self.raw_path_of(material);
        let writer = retro_format::TableWriter::create(&path, &header).map_err(GenError::from)?;
        fast::convert::write_body(
            geo,
            &indexer,
            &built,
            usize::from(header.value_width),
            &writer,
        )
        .map_err(GenError::from)?;
        let depths = built.depths;
        drop(built);
        writer.finish().map_err(GenError::from)?;
        self.remove_stale_packed(material)?;
        Ok(BuildReport {
            material,
            metric: Metric::Dtm,
            path,
            reused: false,
            body_checked: true,
            entries_per_side: indexer.size(),
            max_plies,
            seconds: start.elapsed().as_secs_f64(),
            init_seconds,
            retrograde_seconds,
            depths,
            core: Some(CoreKind::Fast),
            packed: None,
            traffic: None,
        })
    }
}

/// An error unless the file `table` holds the table of `material`.
pub(crate) fn expect_material(table: &Table, material: Material) -> Result<(), GenError> {
    match table.header().material == material.to_string() {
        true => Ok(()),
        false => Err(GenError::Inconsistent {
            material: material.to_string(),
            fen: format!(
                "the file {} names {}",
                table.path().display(),
                table.header().material
            ),
        }),
    }
}

/// How many pawns both sides have.
fn pawn_count(material: &Material) -> usize {
    material.count(Side::White, Piece::Pawn) + material.count(Side::Black, Piece::Pawn)
}

/// What [`disk_verdict`] finds of a run's disk.
#[derive(Debug, PartialEq, Eq)]
enum DiskVerdict {
    /// The tables and the largest scratch fit, even with the deepest table's [`DiskNeed::deep`].
    Fits,
    /// They fit as figured, but not if `material`'s mates pass a byte (`more` bytes further).
    FitsUnlessDeep {
        needed: u64,
        material: Material,
        more: u64,
    },
    /// They do not fit: `needed` bytes, the largest scratch being `material`'s.
    Refused { material: Material, needed: u64 },
}

/// Judges a run that builds the tables of `needs` in turn on a disk with `available` bytes
/// free: every table file stays, and one build's scratch is there at a time, so the run needs
/// the tables' bytes and the largest scratch; a table deeper than a byte adds its
/// [`DiskNeed::deep`], the largest of which is the risk reported. `target` names the run when
/// no table has scratch.
fn disk_verdict(
    needs: &[(Material, DiskNeed)],
    available: u64,
    target: Option<Material>,
) -> DiskVerdict {
    let tables = needs
        .iter()
        .fold(0u64, |sum, (_, need)| sum.saturating_add(need.table));
    let scratch = needs.iter().max_by_key(|(_, need)| need.scratch);
    let needed = tables.saturating_add(scratch.map_or(0, |(_, need)| need.scratch));
    let largest = match scratch {
        Some(&(material, need)) if need.scratch > 0 => Some(material),
        _ => target.or(needs.first().map(|&(material, _)| material)),
    };
    if needed > available {
        if let Some(material) = largest {
            return DiskVerdict::Refused { material, needed };
        }
    }
    match needs.iter().max_by_key(|(_, need)| need.deep) {
        Some(&(material, need)) if needed.saturating_add(need.deep) > available => {
            DiskVerdict::FitsUnlessDeep {
                needed,
                material,
                more: need.deep,
            }
        }
        _ => DiskVerdict::Fits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(table: u64, scratch: u64, deep: u64) -> DiskNeed {
        DiskNeed {
            table,
            scratch,
            deep,
        }
    }

    fn m(name: &str) -> Material {
        Material::parse(name).unwrap()
    }

    /// Every table stays and one scratch is there at a time: 10 + 20 + the larger scratch, 5.
    #[test]
    fn a_run_needs_its_tables_and_its_largest_scratch() {
        let needs = [(m("KRvK"), need(10, 3, 12)), (m("KRPvKR"), need(20, 5, 25))];
        assert_eq!(
            disk_verdict(&needs, 34, Some(m("KRPvKR"))),
            DiskVerdict::Refused {
                material: m("KRPvKR"),
                needed: 35
            }
        );
        assert_eq!(
            disk_verdict(&needs, 35 + 24, Some(m("KRPvKR"))),
            DiskVerdict::FitsUnlessDeep {
                needed: 35,
                material: m("KRPvKR"),
                more: 25
            }
        );
        assert_eq!(
            disk_verdict(&needs, 35 + 25, Some(m("KRPvKR"))),
            DiskVerdict::Fits
        );
    }

    /// A table solved in slices goes deeper than a byte only built whole: where the memory
    /// limit refuses that (KRRPvKR whole needs far more than 24 GiB), it has no deeper figure;
    /// a pawnless table keeps its own.
    #[test]
    fn a_sliced_table_too_large_to_build_whole_has_no_deeper_figure() {
        let builder = Builder::new(Board::STANDARD, "unused");
        let krrpkr = m("KRRPvKR");
        let unlimited = builder.disk_needed(krrpkr).unwrap();
        assert_eq!(
            unlimited,
            crate::disk_needed(&builder.geo, krrpkr, CoreKind::Fast).unwrap()
        );
        assert!(unlimited.deep > unlimited.table);
        let limited = builder.with_memory_limit(Some(24 << 30));
        let need = limited.disk_needed(krrpkr).unwrap();
        assert_eq!(
            (need.table, need.scratch, need.deep),
            (unlimited.table, unlimited.scratch, 0)
        );
        let krnknn = m("KRNvKNN");
        assert!(limited.disk_needed(krnknn).unwrap().deep > 0);
    }

    /// Without scratch, a run that does not fit is named after its target.
    #[test]
    fn a_run_without_scratch_is_refused_by_its_target() {
        let needs = [(m("KQvK"), need(8, 0, 8)), (m("KQvKR"), need(9, 0, 9))];
        assert_eq!(
            disk_verdict(&needs, 16, Some(m("KQvKR"))),
            DiskVerdict::Refused {
                material: m("KQvKR"),
                needed: 17
            }
        );
        assert_eq!(disk_verdict(&[], 0, None), DiskVerdict::Fits);
    }
}
